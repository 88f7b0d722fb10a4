"""What the bodies being read may hold together: refused past the budget, released after."""

import pytest

from app.api.webhooks.body import ByteBudget
from app.api.webhooks.errors import Unavailable


def test_bodies_being_read_share_one_byte_budget_released_when_read() -> None:
    budget = ByteBudget(4096)
    with budget.reading() as first:
        first.add(3000)
        with budget.reading() as second, pytest.raises(Unavailable) as refused:
            second.add(2000)
        assert refused.value.status == 503
        assert "hold 3000 bytes, the most at once is 4096" in refused.value.message
        assert budget.held == 3000
    assert budget.held == 0
    with budget.reading() as third:
        third.add(4096)
    assert budget.held == 0

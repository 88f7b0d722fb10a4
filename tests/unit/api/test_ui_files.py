"""The UI's shipped files agree with each other where a mismatch would only cost speed."""

import re

from app.api.ui import static_files


def test_the_preloaded_list_is_the_one_the_page_asks_for() -> None:
    files = static_files.load()
    index = files["index.html"].body.decode()
    store = files["store.js"].body.decode()
    asked = re.search(r'export const LIST_PATH = "([^"]+)";', store)
    preloaded = re.search(r'<link rel="preload" href="([^"]+)" as="fetch"', index)
    assert asked and preloaded
    assert preloaded.group(1) == asked.group(1), "else the browser fetches the list twice"


def test_every_module_is_preloaded() -> None:
    files = static_files.load()
    index = files["index.html"].body.decode()
    modules = {name for name in files if name.endswith(".js") and name != "main.js"}
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/ui/([^"]+)">', index))
    assert preloaded == modules, "a module found only by import is fetched one round trip late"

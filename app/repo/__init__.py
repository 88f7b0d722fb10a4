"""Git repositories: revision resolution, fetch, confined checkouts and manifest rendering."""

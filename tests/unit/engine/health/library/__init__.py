"""Built-in checks for custom resources, one file per project, each a table of live
objects written from the project's documented status and the health they must get."""

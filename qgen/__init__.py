"""qgen: render a table-based work queue, from one YAML spec, into SQL Server and PostgreSQL."""

__version__ = "0.1.0"

"""What commands show: tables and summaries drawn with Rich, one module per kind of result.
Commands (the modules beside this package) read, compute and emit; views only draw."""

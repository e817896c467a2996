"""The command line: Typer commands and Rich rendering only; no computing here."""

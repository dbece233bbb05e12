"""The `graphforge` command line: a thin shell over the stages."""

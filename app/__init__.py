"""The service, the pipeline that composes the parts, and the command line."""

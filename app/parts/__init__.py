"""The service's parts behind the interfaces the pipeline uses, each in a module of its own;
`app.components` builds them."""

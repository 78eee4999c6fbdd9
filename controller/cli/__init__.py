"""``mrc-ctl``: the controller's command line."""

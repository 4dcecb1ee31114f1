"""What the service and the command line show: response bodies and their making from outcomes."""

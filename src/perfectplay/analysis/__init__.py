"""What follows a solve: exact values and their certificate, distributions, simulation."""

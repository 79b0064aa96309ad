#!/bin/sh
# Runs once, when the official postgres image initialises the primary: lets the replica stream
# (the same walletd role and password; a dedicated replication role is stricter, add one if you
# prefer) from the compose network.
set -eu
echo "host replication walletd samenet scram-sha-256" >> "$PGDATA/pg_hba.conf"

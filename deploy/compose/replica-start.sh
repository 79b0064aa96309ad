#!/bin/sh
# The replica's entrypoint: on its first start, clone the primary with pg_basebackup (-R writes
# primary_conninfo and standby.signal, -C -S a replication slot so the primary keeps the WAL the
# replica has not replayed), then run postgres as a hot standby.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  export PGPASSWORD="$(cat "$REPLICATION_PASSWORD_FILE")"
  pg_basebackup -h postgres -U walletd -D "$PGDATA" -R -X stream -C -S walletd_replica --checkpoint=fast
  chmod 0700 "$PGDATA"
fi
exec postgres -c hot_standby=on -c hot_standby_feedback=on

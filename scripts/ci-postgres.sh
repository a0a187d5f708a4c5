#!/usr/bin/env bash
# Start Debian's PostgreSQL (installed by .ci/run) and make the store tests' role and database;
# prints the URL for BOTARENA_TEST_POSTGRES_URL. The role may CREATEDB (each test session makes its
# own database) and CREATEROLE (the secrets test makes a role with a random password, to look for it
# everywhere). Idempotent: a running cluster, an existing role or database are kept. Works without
# systemd (containers): clusters are driven with pg_ctlcluster.
set -euo pipefail

ROLE=botarena
PASSWORD=botarena
DATABASE=botarena_test

version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if [ -z "$version" ]; then
  echo "no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" { found = 1 } END { exit !found }'; then
  pg_createcluster "$version" main >&2
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 ~ /^online/ { up = 1 } END { exit !up }'; then
  pg_ctlcluster "$version" main start >&2
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" { print $3 }')
for _ in $(seq 1 60); do
  pg_isready -q -h 127.0.0.1 -p "$port" && break
  sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p "$port" || { echo "PostgreSQL $version did not start on port $port" >&2; exit 1; }

as_postgres() { runuser -u postgres -- "$@"; }
as_postgres psql -q -p "$port" -v ON_ERROR_STOP=1 >&2 <<SQL
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN
    CREATE ROLE $ROLE LOGIN CREATEDB CREATEROLE PASSWORD '$PASSWORD';
  ELSE
    ALTER ROLE $ROLE LOGIN CREATEDB CREATEROLE PASSWORD '$PASSWORD';
  END IF;
END
\$\$;
SQL
if ! as_postgres psql -p "$port" -Atc "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'" | grep -q 1; then
  as_postgres createdb -p "$port" -O "$ROLE" "$DATABASE" >&2
fi
echo "postgresql+psycopg://$ROLE:$PASSWORD@127.0.0.1:$port/$DATABASE"

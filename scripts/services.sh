#!/usr/bin/env bash
# Check that the scaled mode's services answer on their standard local ports, and start any that
# do not: PostgreSQL (127.0.0.1:5432), Redis (127.0.0.1:6379), RabbitMQ (127.0.0.1:5672).
#
#   scripts/services.sh           # check, start what is down, check again; exit 1 if any is down
#   scripts/services.sh --check   # only check (exit 1 if any is down)
#
# Starting uses the machine's own service commands (Debian packages); without them, or without
# the rights, it says what is missing and fails.  `.ci/run` calls it before the integration suite.
set -uo pipefail

CHECK_ONLY=0
[[ "${1:-}" == "--check" ]] && CHECK_ONLY=1

answers() {  # host port: does something accept TCP connections there?
    timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

postgres_up() {
    if command -v pg_isready >/dev/null 2>&1; then
        pg_isready -q -h 127.0.0.1 -p 5432 -t 2
    else
        answers 127.0.0.1 5432
    fi
}
redis_up() {
    if command -v redis-cli >/dev/null 2>&1; then
        [[ "$(timeout 2 redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" == "PONG" ]]
    else
        answers 127.0.0.1 6379
    fi
}
rabbitmq_up() { answers 127.0.0.1 5672; }

start_postgres() {
    command -v pg_ctlcluster >/dev/null 2>&1 || return 1
    local version
    version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)"
    [[ -n "$version" ]] || return 1
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
}
start_redis() {
    command -v redis-server >/dev/null 2>&1 || return 1
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log
}
start_rabbitmq() {
    command -v rabbitmq-server >/dev/null 2>&1 || return 1
    rabbitmq-server -detached
}

wait_up() {  # name seconds
    local name="$1" deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        "${name}_up" && return 0
        sleep 0.5
    done
    return 1
}

status=0
for name in postgres redis rabbitmq; do
    if "${name}_up"; then
        echo "services: $name answers"
        continue
    fi
    if ((CHECK_ONLY)); then
        echo "services: $name does not answer" >&2
        status=1
        continue
    fi
    echo "services: $name does not answer; starting it"
    if ! "start_$name" >/dev/null 2>&1; then
        echo "services: could not start $name (not installed here, or no rights)" >&2
        status=1
        continue
    fi
    # RabbitMQ takes several seconds to open its port.
    if wait_up "$name" 60; then
        echo "services: $name started"
    else
        echo "services: $name was started but does not answer" >&2
        status=1
    fi
done
exit "$status"

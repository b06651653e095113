#!/usr/bin/env bash
# scripts/slurm/stop.sh - stop the daemons scripts/slurm/start.sh started, by their
# pid files (never by process-name patterns). Safe to run when nothing is running.
#   --purge   also delete Slurm state/spool/logs (next start is a clean slate)
set -uo pipefail

RUNDIR=/run/slurm-ci
LOGDIR=/var/log/slurm
STATEDIR=/var/spool/slurmctld
SPOOLDIR=/var/spool/slurmd

log() { echo "[slurm/stop.sh] $*" >&2; }
alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$2" ]
}
# stop_pidfiles PIDFILE:COMM... : TERM all, wait up to 10 s, then KILL survivors
stop_pidfiles() {
  local spec f comm pid pids=()
  for spec in "$@"; do
    f=${spec%%:*}; comm=${spec##*:}
    if alive "$f" "$comm"; then
      pid=$(cat "$f"); log "stopping $comm (pid $pid)"
      kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
    else
      log "$comm not running"
    fi
    rm -f "$f"
  done
  for _ in $(seq 1 100); do
    local left=0
    for pid in "${pids[@]}"; do [ -e "/proc/$pid" ] && left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    [ -e "/proc/$pid" ] && { log "pid $pid did not exit, sending KILL"; kill -KILL "$pid" 2>/dev/null; }
  done
  sleep 0.2
}

mkdir -p "$RUNDIR"; exec 9>"$RUNDIR/lock"; flock 9   # serialise with start.sh

# 1. cancel every job still queued/running so no job steps outlive slurmd
if alive "$RUNDIR/slurmctld.pid" slurmctld; then
  jobs=$(squeue -h -o '%A' 2>/dev/null | sort -u)
  if [ -n "$jobs" ]; then
    log "cancelling jobs: $(echo $jobs)"
    # shellcheck disable=SC2086
    scancel $jobs 2>/dev/null
    for _ in $(seq 1 50); do
      [ -z "$(squeue -h -o '%A' 2>/dev/null)" ] && break; sleep 0.2
    done
  fi
fi

# 2. daemons: slurmd + slurmctld together, then munged (only if start.sh started it)
stop_pidfiles "$RUNDIR/slurmd.pid:slurmd" "$RUNDIR/slurmctld.pid:slurmctld"
if [ -e "$RUNDIR/munged.started" ]; then
  stop_pidfiles /run/munge/munged.pid:munged
  rm -f "$RUNDIR/munged.started"
elif alive /run/munge/munged.pid munged; then
  log "munged was not started by start.sh; leaving it running"
fi

# report (never kill by name) any job step daemon that survived
for c in /proc/[0-9]*/comm; do
  [ "$(cat "$c" 2>/dev/null)" = slurmstepd ] && { p=${c#/proc/}; log "WARNING: slurmstepd pid ${p%/comm} still running"; }
done

if [ "${1:-}" = --purge ]; then
  log "purging $STATEDIR $SPOOLDIR and the slurm logs"
  rm -rf "$STATEDIR" "$SPOOLDIR"
  rm -f "$LOGDIR/slurmctld.log" "$LOGDIR/slurmd.log"
fi
exit 0

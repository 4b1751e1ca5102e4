#!/usr/bin/env bash
# Wait until a Synapse agent reports READY.
# Usage: wait_ready.sh <target> [timeout-seconds]   (exit 0 ready, 1 timed out, 3 not found)
set -u
target="${1:?usage: wait_ready.sh <target> [timeout-seconds]}"
timeout="${2:-60}"
deadline=$(( $(date +%s) + timeout ))
while :; do
  if ! out=$(synapse status "$target" --json 2>/dev/null); then
    [ "$(date +%s)" -ge "$deadline" ] && { echo "agent $target not found" >&2; exit 3; }
  else
    status=$(printf '%s' "$out" | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).status)}catch{console.log("")}})')
    if [ "$status" = "READY" ]; then echo "$target is READY"; exit 0; fi
  fi
  [ "$(date +%s)" -ge "$deadline" ] && { echo "$target not READY after ${timeout}s (status: ${status:-unknown})" >&2; exit 1; }
  sleep 1
done

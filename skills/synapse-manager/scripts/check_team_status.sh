#!/usr/bin/env bash
# One view of the team: running agents, open board tasks and live file locks.
# Usage: check_team_status.sh
set -u
echo "== agents"
synapse list
echo
echo "== open tasks"
synapse tasks list --status pending,in_progress
echo
echo "== file locks"
synapse file-safety locks

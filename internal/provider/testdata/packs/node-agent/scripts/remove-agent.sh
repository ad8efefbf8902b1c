#!/usr/bin/env bash
# Removes the agent from this node and records the run in /var/tmp/node-agent.log.
set -euo pipefail
rm -rf /var/lib/node-agent
printf 'remove %s\n' "$CP_HOST" >>/var/tmp/node-agent.log

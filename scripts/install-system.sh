#!/usr/bin/env bash
# Debian packages the project needs besides npm: mosquitto (the MQTT broker for the WiFi
# transport, its tests and the virtual lab over WiFi), etcd (the failover benchmark) and
# chromium (the web lab's browser tests, driven by playwright-core: no browser download).
set -euo pipefail
need=()
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v etcdctl >/dev/null 2>&1 || need+=(etcd-client)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"

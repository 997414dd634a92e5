"""A two-node Ray cluster on 127.0.0.1 for tests: ``python tests/ray_cluster.py`` prints the address, then waits.

Both nodes (the head and one worker) have one CPU each and announce 127.0.0.1, so every connection stays on
the loopback (``ray start --node-ip-address 127.0.0.1`` would announce the machine's network address instead).
A driver that joins it needs :data:`LOOPBACK_ENV` too: without it Ray turns "127.0.0.1" in an address into the
machine's network address, where this cluster does not listen.  The cluster lives in this helper process, not in
pytest's: closing the helper's stdin shuts it down, and its node processes are its children, so the test's leak
check sees any that survive.  Ray's auth token is off (loopback only).
"""

from __future__ import annotations

import os
import sys

LOOPBACK = "127.0.0.1"
LOOPBACK_ENV = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
    # Ray's switch for single-machine platforms: "this machine" is then the loopback, never its network address.
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}
NODE = {"num_cpus": 1, "node_ip_address": LOOPBACK, "object_store_memory": 100 * 1024**2}


def main() -> int:
    os.environ.update(LOOPBACK_ENV)  # before Ray reads its constants
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, connect=False,
                      head_node_args={**NODE, "include_dashboard": False, "dashboard_host": LOOPBACK})
    try:
        cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        print(cluster.address, flush=True)
        sys.stdin.read()  # until the test closes our stdin
    finally:
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

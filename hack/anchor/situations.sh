#!/usr/bin/env bash
# Write the inputs of the five situations of a fixture folder that has none
# yet (hack/README.md, "Anchor fixtures"):
#
#   hack/anchor/situations.sh FIXTURE_DIR [CLUSTER_ID [CONSUMER]]
#
#   create      the cluster is new: nothing exists
#   exists      the same event, and what the anchor created exists
#   deleting    the cluster has deleted_time; what was created exists
#   deleted     the cluster has deleted_time; nothing exists
#   reconciled  the cluster's Reconciled condition is True: what was created
#               exists (preconditions on Reconciled are not met)
#
# "exists", "deleting" and "reconciled" get a discovery.from naming create:
# record.sh writes their discovery.json from the anchor's create answer, and
# CONSUMER goes to their "consumer" file: the differential test gives
# bundle-adapter each ManifestWork of discovery.json that has no namespace
# with that one, as Maestro reports it. A
# situation folder that exists already is left as it is, so hand-written
# inputs win. The cluster is HyperFleet's API shape: id, name, generation,
# created_time, spec, status.conditions (Reconciled, Available).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,20p' "$0"; exit 2; }
fx=${1%/} id=${2:-c4471} consumer=${3:-}
[ -f "$fx/task-config.yaml" ] || { echo "situations: $fx has no task-config.yaml" >&2; exit 1; }

cluster() { # deleted_time-or-empty reconciled-status
  local del=""
  [ -n "$1" ] && del="\"deleted_time\": \"$1\","
  cat <<JSON
{
  "id": "$id", "kind": "Cluster", "name": "$id-name", "href": "/api/hyperfleet/v1/clusters/$id",
  "generation": 4, "created_time": "2026-10-02T07:15:00Z", $del
  "spec": {"region": "eu-north-1", "provider": "onprem", "tags": ["gold", "edge-2", "gold"],
    "node_pools": [{"name": "pool-b", "replicas": 5}, {"name": "pool-a", "replicas": 2}]},
  "status": {"conditions": [
    {"type": "Reconciled", "status": "$2", "observed_generation": 4},
    {"type": "Available", "status": "$2"}
  ]}
}
JSON
}

responses() { # deleted_time-or-empty reconciled-status
  cat <<JSON
{
  "responses": [
    {"match": {"method": "GET", "urlPattern": "/api/hyperfleet/v1/clusters/$id\$"},
     "responses": [{"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": $(cluster "$1" "$2")}]},
    {"match": {"method": "PUT", "urlPattern": "/api/hyperfleet/v1/clusters/$id/statuses"},
     "responses": [{"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": {}}]},
    {"match": {"method": "POST", "urlPattern": "/api/hyperfleet/v1/clusters/$id/statuses"},
     "responses": [{"statusCode": 201, "headers": {"Content-Type": "application/json"}, "body": {}}]}
  ]
}
JSON
}

situation() { # name deleted_time reconciled discovery-from
  local d=$fx/situations/$1
  [ -d "$d" ] && return
  mkdir -p "$d"
  cat > "$d/event.json" <<JSON
{
  "specversion": "1.0",
  "id": "evt-$id-$1",
  "type": "io.hyperfleet.cluster.reconcile",
  "source": "/api/hyperfleet/v1/clusters/$id",
  "time": "2026-11-30T10:00:00Z",
  "datacontenttype": "application/json",
  "data": {"id": "$id", "kind": "Cluster", "href": "/api/hyperfleet/v1/clusters/$id", "generation": 4}
}
JSON
  responses "$2" "$3" | jq . > "$d/api-responses.json"
  if [ -n "$4" ]; then
    echo "$4" > "$d/discovery.from"
    [ -n "$consumer" ] && echo "$consumer" > "$d/consumer"
  fi
  return 0
}

situation create "" False ""
situation exists "" False create
situation deleting 2026-11-30T09:58:00Z False create
situation deleted 2026-11-30T09:58:00Z False ""
situation reconciled "" True create

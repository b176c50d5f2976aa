# bundle-adapter — the targets a newcomer and CI use. See README.md.
GO        ?= go
BIN       ?= bin/bundle-adapter
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: all build image test unit e2e bench run-local dry-run maestro-build maestro-up maestro-down fmt clean

all: build

build: ## build the adapter binary into bin/
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/bundle-adapter

image: ## build the container image localhost/bundle-adapter:latest offline, on base images made on this machine (hack/image.sh)
	VERSION=$(VERSION) COMMIT=$(COMMIT) hack/image.sh build

test: ## gofmt check, go vet, go test -race ./... (starts a local Maestro for the integration tests)
	hack/test.sh

unit: ## unit tests only, no servers
	SKIP_INTEGRATION=1 hack/test.sh

e2e: build ## end-to-end tests on the real local stack
	hack/e2e.sh

FUZZTIME         ?= 10s
FUZZMINIMIZETIME ?= 3s
FUZZ_TARGETS     := ./adapter:FuzzDecodeStructured ./bundles:FuzzMemoKey ./broker:FuzzDecode ./config:FuzzLoadTaskConfig ./config:FuzzLoadAdapterConfig ./config:FuzzParseYAML ./task:FuzzTemplate ./bundles:FuzzFingerprint ./tmpl:FuzzURLTemplateValue ./tmpl:FuzzJSONTemplateValue ./maestroclient/view:FuzzDecodeObject
.PHONY: soak
soak: ## soak under load with faults, checked from outside histories (docs/reliability.md "Soak"; SOAK_MINUTES, SOAK_CLUSTERS, SOAK_SEED, SOAK_BROKEN, SOAK_REAL_AGENTS, SOAK_REAL_CLUSTERS)
	hack/soak.sh

.PHONY: fuzz
fuzz: ## run every fuzz target for FUZZTIME each (seed corpora in testdata/fuzz; a failure is saved there)
	hack/fuzz.sh $(FUZZTIME) $(FUZZMINIMIZETIME) $(FUZZ_TARGETS)

bench: ## Go benchmarks, the load harness at 1,000/10,000/50,000 clusters, stock and pooled Maestro (bench/README.md; BENCH_ARGS="--quick" or "--clusters 1000"), then the side-by-side with hyperfleet-adapter (ANCHOR_GIT)
	$(GO) test -run '^$$' -bench . -benchmem ./bundles/... ./adapter/...
	$(GO) test -run '^$$' -bench 'Budget|ListPageFill' -benchmem ./maestroclient/
	hack/bench.sh $(BENCH_ARGS)
	hack/bench.sh --phases side-by-side

dry-run: build ## run the sample event of the onprem example through the pipeline, twice, then a new generation
	hack/dry-run-demo.sh

run-local: build ## the recreation story on the real local stack (hack/run-local.sh; ARGS=--once to exit after it)
	hack/run-local.sh $(ARGS)

.PHONY: run-local-once
run-local-once: build ## the same story once; exit 0 when every step happened in time
	hack/run-local.sh --once $(ARGS)

maestro-build: ## build (or reuse) the cached Maestro server binary
	hack/maestro.sh build

maestro-up: maestro-build ## start a local Maestro on PostgreSQL
	hack/maestro.sh start

maestro-down:
	hack/maestro.sh stop

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin _output

# Helm chart (charts/bundle-adapter); helm is built from its Go module and cached (hack/helm.sh).
HELM_VALUES ?=
.PHONY: helm-build helm-lint helm-template chart-test
helm-build: ## build (or reuse) the cached helm binary
	@hack/helm.sh build >/dev/null

helm-lint: helm-build ## helm lint --strict the chart with its defaults and every ci/*.yaml values file
	@set -e; helm=$$(hack/helm.sh path); \
	$$helm lint --strict charts/bundle-adapter; \
	for f in charts/bundle-adapter/ci/*.yaml; do $$helm lint --strict charts/bundle-adapter --values $$f; done

helm-template: helm-build ## render the chart (HELM_VALUES=charts/bundle-adapter/ci/rabbitmq-values.yaml for another values file)
	@$$(hack/helm.sh path) template bundle-adapter charts/bundle-adapter --namespace bundle-adapter $(if $(HELM_VALUES),--values $(HELM_VALUES))

chart-test: helm-build ## lint, render and check the chart, its config, dashboard and alert rules (no cluster; the dry run is in make e2e)
	REQUIRE_HELM=1 $(GO) test -count=1 ./charts/

# A node that runs pods beside the local control plane (hack/node.sh; root).
.PHONY: node-build node-up node-down
node-build: ## build (or reuse) kube-scheduler and kubelet, install containerd/runc/CNI when missing
	hack/node.sh build
node-up: node-build ## start the control plane (if needed), containerd, scheduler and kubelet; wait for the node Ready
	hack/node.sh up
node-down: ## stop the node and undo what the kubelet changed on the host (the control plane stays)
	hack/node.sh down

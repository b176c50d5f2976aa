package config

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// zeroIsAValue lists the numeric and duration keys whose zero is a value
// of its own, not "use the default": config dump prints them as they are.
var zeroIsAValue = map[string]string{
	"broker_config.broker.rabbitmq.prefetch_size": "0 is AMQP's no byte limit",
	"broker_config.subscriber.shutdown_timeout":   "0 stops without waiting",
}

// Every number a user sets, left at zero, shows in config dump what it
// means (issue 44): the value in effect ("# default") or what zero does
// ("# 0: ..."), unless zeroIsAValue says zero is its own value. The test
// enumerates the zero leaves of the dumps of configs that leave most keys
// unset (the examples, Maestro with RabbitMQ and Pub/Sub, and the
// kubernetes transport's), so a key added without a Bound.Zero, and
// without a line here, fails.
func TestDumpShowsWhatEveryZeroMeans(t *testing.T) {
	files := []Files{
		{Adapter: "examples/onprem/adapter-config.yaml", Task: "examples/onprem/task-config.yaml", Broker: "examples/onprem/broker.yaml"},
		{Adapter: "examples/gcp/adapter-config.yaml", Task: "examples/gcp/task-config.yaml", Broker: "examples/gcp/broker.yaml"},
		{Adapter: "testdata/kubernetes/adapter-config.yaml", Task: "testdata/kubernetes/namespace-job.yaml"},
	}
	unexplained := map[string]bool{}
	for _, f := range files {
		cfg, err := Load(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", f.Adapter, err)
		}
		var b bytes.Buffer
		if err := cfg.Dump(&b); err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("%s: the dump is not YAML: %v\n%s", f.Adapter, err, b.String())
		}
		walkLeaves(&doc, "", func(path string, leaf *yaml.Node) {
			if (leaf.Value == "0" || leaf.Value == "0s" || leaf.Value == "0.0") && leaf.LineComment == "" {
				if _, ok := zeroIsAValue[path]; !ok {
					unexplained[path] = true
				}
			}
		})
	}
	var paths []string
	for p := range unexplained {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) > 0 {
		t.Errorf("config dump prints 0 without saying what it means for:\n  %s\n"+
			"name the default in its Bound.Zero (config/bounds.go), or list it in zeroIsAValue", strings.Join(paths, "\n  "))
	}
}

// A zero whose default is a value shows that value; one whose default is a
// description keeps its zero and says what it means.
func TestDumpEffectiveDefaults(t *testing.T) {
	cfg, err := Load(Files{Adapter: "examples/onprem/adapter-config.yaml", Task: "examples/onprem/task-config.yaml", Broker: "examples/onprem/broker.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := cfg.Dump(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"consumer_writes_per_second: 30 # default",
		"consumer_write_mode: adaptive # default",
		"base_delay: 200ms # default",
		"time: 0s # 0: no pings",
		"max_age: 5m # default",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, b.String())
		}
	}
}

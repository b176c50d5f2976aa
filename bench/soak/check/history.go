// Package check is the soak's checker (bench/soak): it reads the histories a
// soak run recorded outside the adapter (what the publisher sent, what the
// HyperFleet API received, what RabbitMQ dead-lettered, what Maestro held at
// the end, what the agents received, the faults and the process samples) and
// proves or refutes the soak's invariants: no event lost, every cluster
// converged, nothing duplicated, no status or bundle moved back to an older
// generation, no replica's memory, goroutines or open files growing, and
// the reconcile latency and retry storm figures.
//
// It is pure: Check takes a History and returns a Report; Load reads a run
// directory's JSON-lines files into a History.
package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Published is one event the publisher sent (published.jsonl).
type Published struct {
	EventID    string    `json:"event_id"`
	Cluster    string    `json:"cluster"`
	Generation int       `json:"generation"`
	Deleted    bool      `json:"deleted,omitempty"` // the cluster is being deleted (deleted_time set)
	TraceID    string    `json:"trace_id,omitempty"`
	At         time.Time `json:"at"`
}

// APIRequest is one request the recording HyperFleet API answered (api.jsonl).
type APIRequest struct {
	Method     string    `json:"method"`
	Cluster    string    `json:"cluster"`
	Status     bool      `json:"status"` // a status PUT (else a cluster GET)
	Code       int       `json:"code"`   // the HTTP status answered
	Generation int       `json:"generation,omitempty"`
	Applied    string    `json:"applied,omitempty"` // the Applied condition's status
	Finalized  string    `json:"finalized,omitempty"`
	TraceID    string    `json:"trace_id,omitempty"`
	At         time.Time `json:"at"`
}

// DeadLetter is one message RabbitMQ dead-lettered (deadletters.jsonl).
type DeadLetter struct {
	EventID    string `json:"event_id"`
	Cluster    string `json:"cluster"`
	Generation int    `json:"generation"`
	Reason     string `json:"reason"`
}

// Bundle is one bundle Maestro held at the end (maestro.jsonl).
type Bundle struct {
	Consumer    string `json:"consumer"`
	Name        string `json:"name"`
	ID          string `json:"id"`
	Generation  string `json:"generation,omitempty"` // hyperfleet.io/generation annotation, when any
	Fingerprint string `json:"fingerprint,omitempty"`
	Deleting    bool   `json:"deleting,omitempty"`
	// Applied is the status of the Applied condition its agent last
	// reported (status.conditions), "" when none.
	Applied string `json:"applied,omitempty"`
}

// AgentEvent is one spec event a simulated agent received (agents.jsonl).
type AgentEvent struct {
	Consumer    string `json:"consumer"`
	Name        string `json:"name"`
	UID         string `json:"uid"`
	Kind        string `json:"kind"` // add, update, delete
	Fingerprint string `json:"fingerprint,omitempty"`
	Generation  string `json:"generation,omitempty"`
	Deleting    bool   `json:"deleting,omitempty"`
	// Cluster is the work's hyperfleet.io/cluster-id label. Name is
	// Maestro's resource id (the same for a bundle deleted and created
	// again under its name), not the bundle's name: Bundle.ID maps one
	// Maestro still holds back to its name.
	Cluster string `json:"cluster,omitempty"`
	// OldPresent: the agent still held a work of this name with another
	// uid when this one arrived (a create while the old one existed).
	OldPresent bool `json:"old_present,omitempty"`
	// Redelivered: a deleting work whose deletion this agent had already
	// confirmed, delivered again (agentsim.SpecEvent.Redelivered);
	// OldRedelivered: a live work that replaced such a copy, which held
	// no object (not OldPresent).
	Redelivered    bool      `json:"redelivered,omitempty"`
	OldRedelivered bool      `json:"old_redelivered,omitempty"`
	At             time.Time `json:"at"`
}

// KubeObject is one object a real `maestro agent` applied on the soak's
// kube-apiserver (kube.jsonl), as the harness's watch saw it: Event added or
// deleted during the run, final for each object the listing at the end
// found. Only objects labelled hyperfleet.io/cluster-id are recorded.
type KubeObject struct {
	Event     string `json:"event"` // added, deleted, final
	Kind      string `json:"kind"`  // Namespace, Job
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
	Cluster   string `json:"cluster"` // the hyperfleet.io/cluster-id label
	// Generation is a Job's GENERATION environment value (the cluster's
	// generation the bundle was rendered from); empty for a Namespace.
	Generation  string    `json:"generation,omitempty"`
	Terminating bool      `json:"terminating,omitempty"` // deletionTimestamp set
	At          time.Time `json:"at"`
}

// Fault is one fault the schedule made (faults.jsonl).
type Fault struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
	At     time.Time      `json:"at"`
	End    time.Time      `json:"end"`
	Error  string         `json:"error,omitempty"`
}

// Sample is one reading of a replica's process (samples.jsonl).
type Sample struct {
	Replica    string    `json:"replica"`
	PID        int       `json:"pid"`
	RSSBytes   float64   `json:"rss_bytes"`
	Goroutines float64   `json:"goroutines"`
	FDs        float64   `json:"fds"`
	At         time.Time `json:"at"`
}

// Meta is what the run says of itself (meta.json).
type Meta struct {
	Start, PublishEnd, End time.Time
	Clusters               int     `json:"clusters"`
	Seed                   int64   `json:"seed"`
	RatePerS               float64 `json:"rate_per_s"`
	Broken                 string  `json:"broken,omitempty"`
	// MaestroRequests is the replicas' Maestro requests over the run (all
	// verbs and codes), CreatesRefused their creates Maestro refused because
	// a bundle of that name existed (code already_exists).
	MaestroRequests float64 `json:"maestro_requests"`
	CreatesRefused  float64 `json:"creates_refused"`
	// Creates are the creates Maestro accepted (code ok).
	Creates float64 `json:"creates"`
	// BundleSuffixes name a live cluster's bundles: <cluster><suffix>
	// each; GenerationBundle is the suffix of the one whose
	// hyperfleet.io/generation annotation follows the cluster's generation.
	BundleSuffixes   []string `json:"bundle_suffixes"`
	GenerationBundle string   `json:"generation_bundle,omitempty"`
	// KubeClusters are the clusters served by real agents: each must hold
	// one object of every KubeKinds on the kube-apiserver at the end (the
	// one of KubeGenerationKind at the cluster's last generation), none
	// when the cluster was deleted. KubeListedAt is when the final listing
	// was taken (zero: never).
	KubeClusters       []string  `json:"kube_clusters,omitempty"`
	KubeKinds          []string  `json:"kube_kinds,omitempty"`
	KubeGenerationKind string    `json:"kube_generation_kind,omitempty"`
	KubeListedAt       time.Time `json:"kube_listed_at,omitempty"`
	// QueueHeld is what RabbitMQ held at the end, after the drain: the
	// messages (ready and unacknowledged) of each of the run's queues
	// but the dead-letter queue. An event still held was neither acked
	// nor dead-lettered. Nil: not listed.
	QueueHeld map[string]int `json:"queue_held,omitempty"`
	// MaestroSpecQueuePeak is the most spec events Maestro's queue was
	// seen holding (its metrics, read every 15 s by the delivery watch),
	// at MaestroSpecQueuePeakAt: what a delivery waits behind.
	MaestroSpecQueuePeak   int       `json:"maestro_spec_queue_peak,omitempty"`
	MaestroSpecQueuePeakAt time.Time `json:"maestro_spec_queue_peak_at,omitempty"`
}

// History is everything a run recorded.
type History struct {
	Meta        Meta
	Published   []Published
	API         []APIRequest
	DeadLetters []DeadLetter
	Bundles     []Bundle
	Agents      []AgentEvent
	Kube        []KubeObject
	Faults      []Fault
	Samples     []Sample
}

// Files are the history files of a run directory.
var Files = struct{ Published, API, DeadLetters, Bundles, Agents, Kube, Faults, Samples, Meta string }{
	"published.jsonl", "api.jsonl", "deadletters.jsonl", "maestro.jsonl", "agents.jsonl", "kube.jsonl", "faults.jsonl", "samples.jsonl", "meta.json",
}

// Load reads a run directory. A missing JSON-lines file is an empty
// history; a missing meta.json or a line that does not decode is an error.
func Load(dir string) (*History, error) {
	h := &History{}
	b, err := os.ReadFile(filepath.Join(dir, Files.Meta))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &h.Meta); err != nil {
		return nil, fmt.Errorf("%s: %w", Files.Meta, err)
	}
	for _, f := range []struct {
		name string
		read func(*json.Decoder) error
	}{
		{Files.Published, lines(&h.Published)}, {Files.API, lines(&h.API)}, {Files.DeadLetters, lines(&h.DeadLetters)},
		{Files.Bundles, lines(&h.Bundles)}, {Files.Agents, lines(&h.Agents)}, {Files.Kube, lines(&h.Kube)}, {Files.Faults, lines(&h.Faults)},
		{Files.Samples, lines(&h.Samples)},
	} {
		if err := readLines(filepath.Join(dir, f.name), f.read); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return h, nil
}

func lines[T any](dst *[]T) func(*json.Decoder) error {
	return func(d *json.Decoder) error {
		var v T
		if err := d.Decode(&v); err != nil {
			return err
		}
		*dst = append(*dst, v)
		return nil
	}
}

func readLines(path string, read func(*json.Decoder) error) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := read(json.NewDecoder(bytes.NewReader(sc.Bytes()))); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

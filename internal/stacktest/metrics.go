package stacktest

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Metrics is one read of a Prometheus text exposition: the samples of every
// metric, by name.
type Metrics map[string][]Sample

// Sample is one line of a metric: its label set as written ("{a="x",...}",
// "" without labels) and its value.
type Sample struct {
	Labels string
	Value  float64
}

// MaestroRequests is the adapter's counter of Maestro calls (labels verb,
// code).
const MaestroRequests = "bundle_adapter_maestro_requests_total"

// Scrape GETs url (an adapter's /metrics) and parses it. Comment lines and
// lines whose value does not parse are skipped.
func Scrape(url string) (Metrics, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	m := Metrics{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			continue
		}
		labels := ""
		if strings.HasPrefix(rest, "{") {
			labels = rest[:strings.LastIndex(rest, "}")+1]
		}
		m[name] = append(m[name], Sample{Labels: labels, Value: v})
	}
	return m, sc.Err()
}

// Sum adds the samples of name whose label set contains every `key="value"`
// given (all samples without labels given); 0 when there are none.
func (m Metrics) Sum(name string, labels ...string) float64 {
	total := 0.0
next:
	for _, s := range m[name] {
		for _, l := range labels {
			if !strings.Contains(s.Labels, l) {
				continue next
			}
		}
		total += s.Value
	}
	return total
}

// By sums the samples of name by the value of one label.
func (m Metrics) By(name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range m[name] {
		_, rest, ok := strings.Cut(s.Labels, label+`="`)
		if !ok {
			continue
		}
		v, _, _ := strings.Cut(rest, `"`)
		out[v] += s.Value
	}
	return out
}

// MaestroReads counts Maestro read requests: single gets and batch reads
// (one request for every bundle of an event).
func (m Metrics) MaestroReads() float64 {
	return m.Sum(MaestroRequests, `verb="get"`) + m.Sum(MaestroRequests, `verb="get_bundles"`)
}

// MaestroWrites counts Maestro create, update and delete calls.
func (m Metrics) MaestroWrites() float64 {
	return m.Sum(MaestroRequests, `verb="create"`) + m.Sum(MaestroRequests, `verb="update"`) +
		m.Sum(MaestroRequests, `verb="delete"`)
}

// MaestroWritesRefused counts the Maestro creates, updates and deletes
// refused as unavailable (Maestro unreachable, or the source client not
// connected: "the cloudevents client is not ready").
func (m Metrics) MaestroWritesRefused() float64 {
	return m.Sum(MaestroRequests, `verb="create"`, `code="unavailable"`) + m.Sum(MaestroRequests, `verb="update"`, `code="unavailable"`) +
		m.Sum(MaestroRequests, `verb="delete"`, `code="unavailable"`)
}

// SourceClients is how many of the process's Maestro source clients hold
// their gRPC connection, and how many it has (0, 0: no Maestro client).
func (m Metrics) SourceClients() (connected, total float64) {
	return m.Sum("bundle_adapter_maestro_source_clients_connected"), m.Sum("bundle_adapter_maestro_source_clients")
}

// MaestroCreates counts the Maestro creates that succeeded.
func (m Metrics) MaestroCreates() float64 {
	return m.Sum(MaestroRequests, `verb="create"`, `code="ok"`)
}

// MaestroCreatesRefused counts the Maestro creates refused because the
// bundle already existed.
func (m Metrics) MaestroCreatesRefused() float64 {
	return m.Sum(MaestroRequests, `verb="create"`, `code="already_exists"`)
}

// MaestroSpecQueue is Maestro's spec event queue, from Maestro's own
// /metrics: Maestro hands each spec change (its event) to the agent from
// one client-go workqueue, "event-controller", worked by one goroutine in
// order (maestro pkg/controllers KindControllerManager). Added counts the
// events queued, Done those processed (the queue's work-duration
// histogram), Depth those waiting; Start is Maestro's process start, which
// a restart changes (the counters start again, and the new process queues
// every event not yet reconciled).
type MaestroSpecQueue struct {
	Added, Done, Depth, Start float64
}

// MaestroSpecQueue reads m as a Maestro server's metrics; ok is false when
// they hold no event-controller queue.
func (m Metrics) MaestroSpecQueue() (q MaestroSpecQueue, ok bool) {
	const queue = `queue_name="event-controller"`
	for _, s := range m["workqueue_depth"] {
		ok = ok || strings.Contains(s.Labels, queue)
	}
	if !ok {
		return q, false
	}
	return MaestroSpecQueue{
		Added: m.Sum("workqueue_adds_total", queue),
		Done:  m.Sum("workqueue_work_duration_seconds_count", queue),
		Depth: m.Sum("workqueue_depth", queue),
		Start: m.Sum("process_start_time_seconds"),
	}, true
}

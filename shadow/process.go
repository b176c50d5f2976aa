package shadow

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Options configures a Shadow.
type Options struct {
	// Run runs one event through a pipeline built over the read-only
	// boundaries of this package (adapter.Pipeline.Run). Required.
	Run func(context.Context, adapter.Event) *adapter.Result
	// API is the HyperFleet API the status is read from (GET only): the
	// real client, or the read-only one. Required.
	API adapter.API
	// Adapter is this adapter's name: the status entry compared is the
	// one whose adapter is the name in the status body, or this one.
	Adapter string
	// Count, when set, is called once per decision (the metric
	// bundle_adapter_shadow_decisions_total): its operation, whether it
	// agrees, and the class of what differs (Decision.Field, "" when it
	// agrees).
	Count func(operation string, agrees bool, field string)
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Shadow processes events without writing and compares.
type Shadow struct{ o Options }

// New returns a Shadow; Run and API are required.
func New(o Options) (*Shadow, error) {
	if o.Run == nil || o.API == nil {
		return nil, errors.New("shadow: Run and API are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Shadow{o: o}, nil
}

// Process runs ev as serve does, with every write recorded instead of
// made, then judges each resource and the status report (Decisions),
// counts and logs them, and returns the pipeline's result: an event the
// pipeline ran is acked as serve acks it, and one whose read failed is
// retried as serve retries it (nothing is counted for it). A failed read
// of the live status is a failed read too (retried when transient).
func (s *Shadow) Process(ctx context.Context, ev adapter.Event) *adapter.Result {
	var log Log
	res := s.o.Run(WithLog(ctx, &log), ev)
	if res.Disposition() != adapter.Ack {
		return res
	}
	decisions, err := s.Decisions(ctx, res, log.Writes())
	if err != nil {
		res.Errors = append(res.Errors, &adapter.PhaseError{Phase: "shadow", Step: "status", Message: err.Error()})
		res.Error = res.Errors[0]
		res.ExecutionStatus = adapter.ExecutionFailed
		s.o.Logger.Warn("shadow: live status not read; the event is retried", "event_id", ev.ID, "error", err.Error())
		return res
	}
	s.report(ev, decisions)
	return res
}

// Decisions judges res and the writes its event would have made: one
// decision per resource (resourceDecisions), one per status report
// (compared with the status the API holds for this adapter), one per other
// API write (always a disagreement).
func (s *Shadow) Decisions(ctx context.Context, res *adapter.Result, writes []Write) ([]Decision, error) {
	out := resourceDecisions(res, writes)
	for _, w := range writes {
		if w.Boundary != "api" {
			continue
		}
		if !isStatusWrite(w) {
			out = append(out, Decision{Resource: w.Verb + " " + w.URL, Operation: "api", Differences: []string{"would " + w.Verb + " " + w.URL}})
			continue
		}
		d, err := s.statusDecision(ctx, w)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// statusDecision compares the status w would report with the entry of
// this adapter in GET w.URL.
func (s *Shadow) statusDecision(ctx context.Context, w Write) (Decision, error) {
	want, err := decodeStatus(w.Body)
	if err != nil {
		return Decision{Resource: "status", Operation: "status", Field: FieldOther, Differences: []string{"status body is not an adapter status: " + err.Error()}}, nil
	}
	name, _ := want["adapter"].(string)
	if name == "" {
		name = s.o.Adapter
	}
	resp, err := s.o.API.Do(ctx, adapter.APIRequest{Method: http.MethodGet, URL: w.URL, Headers: w.Headers})
	if err == nil && resp.Status != http.StatusOK && resp.Status != http.StatusNotFound {
		err = &adapter.APIError{Method: http.MethodGet, URL: w.URL, Status: resp.Status, Body: string(resp.Body)}
	}
	var apiErr *adapter.APIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound || err == nil && resp.Status == http.StatusNotFound {
		return Decision{Resource: "status", Operation: "status", Field: FieldCondition, Differences: []string{"live: no status of adapter " + name}}, nil
	}
	if err != nil {
		return Decision{}, err
	}
	live, ok, err := liveStatus(resp.Body, name)
	if err != nil {
		return Decision{Resource: "status", Operation: "status", Field: FieldOther, Differences: []string{err.Error()}}, nil
	}
	if !ok {
		return Decision{Resource: "status", Operation: "status", Field: FieldCondition, Differences: []string{"live: no status of adapter " + name}}, nil
	}
	diff, field := statusDiff(want, live)
	return Decision{Resource: "status", Operation: "status", Agrees: len(diff) == 0, Field: field, Differences: diff}, nil
}

// report counts the decisions and logs one line for the event: info when
// every decision agrees, warn with the disagreeing ones otherwise.
func (s *Shadow) report(ev adapter.Event, decisions []Decision) {
	var differ []Decision
	for _, d := range decisions {
		if s.o.Count != nil {
			s.o.Count(d.Operation, d.Agrees, d.Field)
		}
		if !d.Agrees {
			differ = append(differ, d)
		}
	}
	if len(differ) == 0 {
		s.o.Logger.Info("shadow: agrees", "event_id", ev.ID, "decisions", len(decisions))
		return
	}
	s.o.Logger.Warn("shadow: disagrees", "event_id", ev.ID, "decisions", len(decisions), "disagreements", differ)
}

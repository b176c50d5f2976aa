package adapter

import (
	"fmt"
	"math"
	"strconv"
)

// The stale-event guard: an event older than what the HyperFleet API holds
// for its resource writes nothing and reports nothing.
//
// Several replicas, redeliveries and restarts are normal, and no process
// remembers what another applied; the one record every replica reads is
// the API. Sentinel publishes an event with the generation the API holds
// for the resource at that moment, and that generation only grows. So an
// event whose generation is below the one the API answers now describes a
// past state: a newer event was published (applied, or still to be), and
// applying this one would move the bundles and the status back. A
// generation above the API's is one the API never held: a forged or
// corrupted event, or one from before the resource was recreated under the
// same id; nothing can check it, so it writes nothing either and is
// redelivered until the broker's max_deliveries dead-letters it.
//
// Where the two generations come from (docs/configuration.md "Stale
// events"): the event's is its data's "generation" (Sentinel's field,
// whatever a config names the param that reads it); the API's is the
// "generation" of the first API answer, read by a param's or a
// precondition's api_call, that is the event's resource: an object whose
// "id" is the event's data "id". The bundles' own generation annotations
// are never believed: any event can write any number there.

// Generation verdicts (GenerationCheck.Verdict).
const (
	// GenerationUnchecked: the event or the API answers carry no
	// generation of the event's resource; the event runs as before.
	GenerationUnchecked = ""
	// GenerationCurrent: the event's generation is the API's.
	GenerationCurrent = "current"
	// GenerationStale: the event's generation is below the API's; nothing
	// is written or reported, the event is acked.
	GenerationStale = "stale"
	// GenerationAhead: the event's generation is above the API's; nothing
	// is written or reported, the event is redelivered.
	GenerationAhead = "ahead"
)

// ReasonStaleGeneration is the skip reason of a stale event.
const ReasonStaleGeneration = "StaleGeneration"

// GenerationCheck is what the stale guard compared for one event.
type GenerationCheck struct {
	// Event and API are the two generations; APIFrom names the param or
	// precondition whose answer gave the API's. Zero when not found.
	Event   int64  `json:"event,omitempty"`
	API     int64  `json:"api,omitempty"`
	APIFrom string `json:"apiFrom,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// judgeGeneration is the guard's decision for an event of generation ev
// when the API holds api (each with whether it was found).
func judgeGeneration(ev int64, haveEv bool, api int64, haveAPI bool) string {
	switch {
	case !haveEv || !haveAPI:
		return GenerationUnchecked
	case ev < api:
		return GenerationStale
	case ev > api:
		return GenerationAhead
	}
	return GenerationCurrent
}

// checkGeneration runs the guard on what params and preconditions read and
// records it in the result. It reports whether the event may go on to its
// bundles and post.
func (r *eventRun) checkGeneration() bool {
	c := &r.result.Generation
	ev, haveEv := generationValue(r.ev.Data["generation"])
	api, from, haveAPI := r.apiGeneration()
	c.Verdict = judgeGeneration(ev, haveEv, api, haveAPI)
	if haveEv {
		c.Event = ev
	}
	if haveAPI {
		c.API, c.APIFrom = api, from
	}
	switch c.Verdict {
	case GenerationStale:
		r.log.Info("stale event: its generation is older than the API's; nothing written, nothing reported, acked",
			"event_generation", ev, "api_generation", api, "api_from", from)
		r.result.Skipped, r.result.SkipReason = true, ReasonStaleGeneration
		return false
	case GenerationAhead:
		r.phaseError("generation", from, fmt.Errorf(
			"the event's generation %d is above the generation %d the API answers for its resource (%s): "+
				"nothing written or reported; redelivered until the API holds it or max_deliveries dead-letters it", ev, api, from))
		return false
	}
	return true
}

// apiGeneration is the generation of the event's resource in the first API
// answer that is that resource (see the package's guard comment), and the
// name of the param or precondition that read it.
func (r *eventRun) apiGeneration() (int64, string, bool) {
	id, ok := r.ev.Data["id"].(string)
	if !ok || id == "" {
		return 0, "", false
	}
	for _, name := range r.p.apiReads {
		m, ok := r.vars[name].(map[string]any)
		if !ok || m["id"] != id {
			continue
		}
		if g, ok := generationValue(m["generation"]); ok {
			return g, name, true
		}
	}
	return 0, "", false
}

// apiReadNames are the names of the params and preconditions whose value
// is an API answer, in the order they run.
func (p *Pipeline) apiReadNames() []string {
	var out []string
	for i := range p.task.Params {
		if p.task.Params[i].Source.APICall != nil {
			out = append(out, p.task.Params[i].Name)
		}
	}
	for i := range p.task.Preconditions {
		if p.task.Preconditions[i].APICall != nil {
			out = append(out, p.task.Preconditions[i].Name)
		}
	}
	return out
}

// generationValue reads a generation: a whole JSON number or a decimal
// string, at least 1. Anything else is no generation.
func generationValue(v any) (int64, bool) {
	var g int64
	switch x := v.(type) {
	case int64:
		g = x
	case float64:
		if x != math.Trunc(x) || x < 1 || x >= math.MaxInt64 {
			return 0, false
		}
		g = int64(x)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, false
		}
		g = n
	default:
		return 0, false
	}
	return g, g >= 1
}

package memmaestro

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Delete behaviours of a Store: what the simulated agent does once a work is
// deleted.
const (
	// DeletePending keeps a deleted work, with its deletionTimestamp, until
	// Confirm or ConfirmAll is called. It is the default.
	DeletePending = "pending"
	// DeleteImmediate confirms a deletion at once: the next Get answers
	// ErrNotFound. Works marked stuck stay pending even so.
	DeleteImmediate = "immediate"
)

// DefaultSourceID is the Maestro source ID used to derive work uids when
// Options.SourceID is empty.
const DefaultSourceID = "memmaestro"

// Options configures a Store. The zero value is usable.
type Options struct {
	// Clock returns the current time. It stamps creationTimestamp,
	// deletionTimestamp and condition transition times, truncated to whole
	// seconds. Default: time.Now.
	Clock func() time.Time
	// DeleteBehavior is DeletePending or DeleteImmediate. Default (empty):
	// DeletePending. New panics on any other value.
	DeleteBehavior string
	// Consumers lists the registered consumers. nil means every consumer is
	// registered; a non-nil list, even an empty one, registers exactly its
	// members.
	Consumers []string
	// AutoStatus makes the simulated agent report success on every create
	// and update: conditions Applied=True and Available=True observing the
	// new generation, and a status.resourceStatus.manifests entry per
	// manifest. Default false: status stays as Create left it (empty) or as
	// SetStatus set it.
	AutoStatus bool
	// SourceID is the Maestro source the uids are derived from.
	// Default: DefaultSourceID.
	SourceID string
	// Intercept, when set, runs before every Maestro call (after the call is
	// recorded and injected faults are applied), outside the Store's lock, so
	// it may call the Store itself, e.g. to simulate a second replica. A
	// non-nil error is returned to the caller as is and the call does
	// nothing else.
	Intercept func(ctx context.Context, call Call) error
}

// Store is an in-memory Maestro. Create one with New or LoadState. It
// implements adapter.Maestro and is safe for concurrent use.
type Store struct {
	clock          func() time.Time
	deleteBehavior string
	autoStatus     bool
	sourceID       string
	intercept      func(context.Context, Call) error
	consumers      map[string]bool // nil: every consumer is registered

	mu     sync.Mutex
	works  map[key]*workv1.ManifestWork
	stuck  map[key]bool
	faults []*fault
	calls  []Call
}

var _ adapter.Maestro = (*Store)(nil)

type key struct{ consumer, name string }

// New returns an empty Store configured by opts. It panics when
// opts.DeleteBehavior is not one of the documented values.
func New(opts Options) *Store {
	s, err := newStore(opts)
	if err != nil {
		panic(err)
	}
	return s
}

func newStore(opts Options) (*Store, error) {
	s := &Store{
		clock:          opts.Clock,
		deleteBehavior: opts.DeleteBehavior,
		autoStatus:     opts.AutoStatus,
		sourceID:       opts.SourceID,
		intercept:      opts.Intercept,
		works:          map[key]*workv1.ManifestWork{},
		stuck:          map[key]bool{},
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.sourceID == "" {
		s.sourceID = DefaultSourceID
	}
	switch s.deleteBehavior {
	case "":
		s.deleteBehavior = DeletePending
	case DeletePending, DeleteImmediate:
	default:
		return nil, fmt.Errorf("memmaestro: delete behavior %q: want %q or %q",
			opts.DeleteBehavior, DeletePending, DeleteImmediate)
	}
	if opts.Consumers != nil {
		s.consumers = make(map[string]bool, len(opts.Consumers))
		for _, c := range opts.Consumers {
			s.consumers[c] = true
		}
	}
	return s, nil
}

// registered reports whether consumer is registered.
func (s *Store) registered(consumer string) bool {
	return s.consumers == nil || s.consumers[consumer]
}

// now is the Store's clock truncated to the precision Maestro keeps.
func (s *Store) now() metav1.Time {
	return metav1.NewTime(s.clock().Truncate(time.Second))
}

// begin records a call and applies, in order, the context, injected faults
// and the interceptor. A non-nil result ends the call.
func (s *Store) begin(ctx context.Context, verb, consumer, name string) error {
	call := Call{Verb: verb, Consumer: consumer, Name: name}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	var injected error
	if ctx.Err() == nil {
		injected = s.takeFault(verb)
	}
	s.mu.Unlock()

	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w: %w", call, adapter.ErrUnavailable, err)
	}
	if injected != nil {
		return fmt.Errorf("%s: injected fault: %w", call, injected)
	}
	if s.intercept != nil {
		return s.intercept(ctx, call)
	}
	return nil
}

// Works returns a deep copy of every work the Store holds, deleting ones
// included, sorted by namespace (consumer) then name.
func (s *Store) Works() []*workv1.ManifestWork {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*workv1.ManifestWork, 0, len(s.works))
	for _, w := range s.works {
		out = append(out, w.DeepCopy())
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// DeleteBehavior returns the Store's delete behaviour, DeletePending or
// DeleteImmediate.
func (s *Store) DeleteBehavior() string { return s.deleteBehavior }

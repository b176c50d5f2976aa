package adapter

// Operation is what the reconciler did, or is doing, to a bundle.
type Operation string

// Operations of a bundle outcome.
const (
	OpCreate    Operation = "create"
	OpUpdate    Operation = "update"
	OpUnchanged Operation = "unchanged"
	OpRecreate  Operation = "recreate"
	OpDelete    Operation = "delete"
	// OpSkip: the bundle is absent and its lifecycle.create.when is false;
	// nothing is written (HyperFleet's operation skip).
	OpSkip Operation = "skip"
)

// State says whether the operation is finished.
type State string

// States of a bundle outcome. Failed is used only together with an error.
const (
	StateDone    State = "done"
	StatePending State = "pending"
	StateStalled State = "stalled"
	StateFailed  State = "failed"
)

// Reasons reported in bundle outcomes (and used by the example configs in
// status conditions).
const (
	ReasonCreated   = "Created"
	ReasonUpdated   = "Updated"
	ReasonUnchanged = "Unchanged"
	// ReasonAdopted: unchanged, and the observed object carried no
	// fingerprint annotation: another writer (hyperfleet-adapter, a
	// person) made it with the content this adapter would write, so it is
	// adopted without a write.
	ReasonAdopted               = "Adopted"
	ReasonRecreated             = "Recreated"
	ReasonRecreationPending     = "RecreationPending"
	ReasonRecreationStalled     = "RecreationStalled"
	ReasonDeleted               = "Deleted"
	ReasonDeletionPending       = "DeletionPending"
	ReasonDeletionStalled       = "DeletionStalled"
	ReasonConsumerNotRegistered = "ConsumerNotRegistered"
	ReasonMaestroUnavailable    = "MaestroUnavailable"
	ReasonRenderFailed          = "RenderFailed"
	ReasonRuleFailed            = "RuleFailed"
	ReasonMaestroError          = "MaestroError"
	ReasonSkipped               = "Skipped"
)

// Outcome is the result of reconciling one bundle for one event. CEL in post
// sees it as bundles.<name> with the keys operation, state, reason,
// fingerprint, pendingSeconds, redeletes and error.
//
// Redeletes is how many times the pending deletion's delete has been sent
// again by now (escalation of a stalled deletion), counted from the
// deletion's age as every replica counts it; 0 while not stalled.
type Outcome struct {
	Name           string    `json:"name"`
	Consumer       string    `json:"consumer"`
	WorkName       string    `json:"workName"`
	Operation      Operation `json:"operation"`
	State          State     `json:"state"`
	Reason         string    `json:"reason"`
	Fingerprint    string    `json:"fingerprint"`
	PendingSeconds int64     `json:"pendingSeconds"`
	Redeletes      int       `json:"redeletes"`
	Error          string    `json:"error"`

	err error
}

// Err is the error behind a failed outcome, nil otherwise.
func (o Outcome) Err() error { return o.err }

func (o Outcome) celValue() map[string]any {
	return map[string]any{
		"operation":      string(o.Operation),
		"state":          string(o.State),
		"reason":         o.Reason,
		"fingerprint":    o.Fingerprint,
		"pendingSeconds": o.PendingSeconds,
		"redeletes":      int64(o.Redeletes),
		"error":          o.Error,
		"consumer":       o.Consumer,
		"workName":       o.WorkName,
	}
}

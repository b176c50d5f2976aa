package celenv

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"github.com/google/cel-go/parser"
)

// ClockVar is the hidden CEL variable that holds the event's clock (a
// timestamp). now(), conditionAge and stableFor read it: the parser expands
// each call into an internal function that takes the clock as its last
// argument, so programs are compiled once and every event (and dry-run's
// --now) gets its own time. Whoever evaluates an expression binds it.
const ClockVar = "_ba_now"

// Internal functions the clock macros expand to. Their names start with
// "_ba_", stripped from error messages (see oneLine).
const (
	celNowFn          = "_ba_now_at"
	celConditionAgeFn = "_ba_conditionAge"
	celStableForFn    = "_ba_stableFor"
)

// Overload IDs of hyperfleet-adapter's CEL helpers (internal/criteria).
const (
	celDigOverload        = "dig_dyn_string"
	celNowOverload        = "now_timestamp"
	celCondStatusOverload = "conditionStatus_list_string"
	celCondAgeOverload    = "conditionAge_list_string_timestamp"
	celStableForOverload  = "stableFor_list_string_int_timestamp"
	celFeedbackOverload   = "statusFeedbackValue_dyn_string"
	celTriStateOverload   = "triState_bool_bool"
	celConditionTimeField = "last_transition_time"
	celMaxDigSegments     = 1 << 10
)

// hyperfleetCELFunctions are the helpers hyperfleet-adapter documents
// (docs/conventions/cel.md), with its signatures and results:
//
//	now()                               the event's clock as an RFC 3339 string (UTC)
//	dig(value, "a.b.0.c")               the value at the dotted path (map keys, list
//	                                    indexes), or null when a step is missing or
//	                                    not a map or list; empty segments are skipped
//	conditionStatus(list, type)         status of the first condition of that type,
//	                                    "Unknown" when absent or its status is not a string
//	conditionAge(list, type)            whole seconds since that condition's
//	                                    last_transition_time (RFC 3339), -1 when the
//	                                    condition, the field or a valid time is absent
//	stableFor(list, type, seconds)      status "True" and conditionAge >= seconds
//	statusFeedbackValue(feedback, name) fieldValue.string of the entry of
//	                                    feedback.values named name, else ""
//	triState(t, f)                      "True" if t, else "False" if f, else "Unknown"
//
// Like hyperfleet-adapter, conditions are read with the HyperFleet API's
// snake_case field last_transition_time; Kubernetes' lastTransitionTime is
// not read (conditionAge is -1 for it). Unlike it, now and the ages use the
// event's clock, not the machine's, and dig also walks maps and lists built
// inside the expression. Each costs one plus the size of what it walks,
// seen by CostLimit.
func hyperfleetCELFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Macros(
			parser.NewGlobalMacro("now", 0, clockMacro(celNowFn)),
			parser.NewGlobalMacro("conditionAge", 2, clockMacro(celConditionAgeFn)),
			parser.NewGlobalMacro("stableFor", 3, clockMacro(celStableForFn)),
		),
		cel.Function("dig",
			cel.Overload(celDigOverload, []*cel.Type{cel.DynType, cel.StringType}, cel.DynType,
				cel.BinaryBinding(celDig))),
		cel.Function(celNowFn,
			cel.Overload(celNowOverload, []*cel.Type{cel.TimestampType}, cel.StringType,
				cel.UnaryBinding(celNow))),
		cel.Function("conditionStatus",
			cel.Overload(celCondStatusOverload, []*cel.Type{cel.ListType(cel.DynType), cel.StringType}, cel.StringType,
				cel.BinaryBinding(celConditionStatus))),
		cel.Function(celConditionAgeFn,
			cel.Overload(celCondAgeOverload, []*cel.Type{cel.ListType(cel.DynType), cel.StringType, cel.TimestampType}, cel.IntType,
				cel.FunctionBinding(celConditionAge))),
		cel.Function(celStableForFn,
			cel.Overload(celStableForOverload, []*cel.Type{cel.ListType(cel.DynType), cel.StringType, cel.IntType, cel.TimestampType}, cel.BoolType,
				cel.FunctionBinding(celStableFor))),
		cel.Function("statusFeedbackValue",
			cel.Overload(celFeedbackOverload, []*cel.Type{cel.DynType, cel.StringType}, cel.StringType,
				cel.BinaryBinding(celStatusFeedbackValue))),
		cel.Function("triState",
			cel.Overload(celTriStateOverload, []*cel.Type{cel.BoolType, cel.BoolType}, cel.StringType,
				cel.BinaryBinding(celTriState))),
		cel.CostEstimatorOptions(
			checker.OverloadCostEstimate(celDigOverload, estimateBySize(1)),
			checker.OverloadCostEstimate(celCondStatusOverload, estimateBySize(0)),
			checker.OverloadCostEstimate(celCondAgeOverload, estimateBySize(0)),
			checker.OverloadCostEstimate(celStableForOverload, estimateBySize(0)),
			checker.OverloadCostEstimate(celFeedbackOverload, estimateBySize(0)),
		),
	}
}

// hyperfleetCELCostTrackers are the run-time costs of the helpers that walk
// a value: one plus the size walked.
func hyperfleetCELCostTrackers() []interpreter.CostTrackerOption {
	return []interpreter.CostTrackerOption{
		interpreter.OverloadCostTracker(celDigOverload, func(args []ref.Val, _ ref.Val) *uint64 {
			return celCost(1 + celStringLen(args, 1))
		}),
		interpreter.OverloadCostTracker(celCondStatusOverload, trackListWalk),
		interpreter.OverloadCostTracker(celCondAgeOverload, trackListWalk),
		interpreter.OverloadCostTracker(celStableForOverload, trackListWalk),
		interpreter.OverloadCostTracker(celFeedbackOverload, func(args []ref.Val, _ ref.Val) *uint64 {
			n := uint64(1)
			if m, ok := args[0].(traits.Mapper); ok {
				if v, found := m.Find(types.String("values")); found {
					n += celSize(v)
				}
			}
			return celCost(n)
		}),
	}
}

func trackListWalk(args []ref.Val, _ ref.Val) *uint64 { return celCost(1 + celSize(args[0])) }

func celCost(n uint64) *uint64 { return &n }

func celSize(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n > 0 {
			return uint64(n)
		}
	}
	return 0
}

func celStringLen(args []ref.Val, i int) uint64 {
	if i < len(args) {
		if s, ok := args[i].(types.String); ok {
			return uint64(len(s))
		}
	}
	return 0
}

// estimateBySize estimates a call as one plus the size of its argument i
// (the list walked, or dig's path).
func estimateBySize(i int) checker.FunctionEstimator {
	return func(est checker.CostEstimator, _ *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
		if i >= len(args) {
			return nil
		}
		size := args[i].ComputedSize()
		if size == nil {
			size = est.EstimateSize(args[i])
		}
		if size == nil {
			u := checker.UnknownSizeEstimate()
			size = &u
		}
		maxCost := size.Max
		if maxCost < math.MaxUint64 {
			maxCost++
		}
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: maxCost}}
	}
}

// clockMacro expands fn(args...) into internal(args..., _ba_now).
func clockMacro(internal string) parser.MacroExpander {
	return func(eh parser.ExprHelper, _ ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) {
		return eh.NewCall(internal, append(append([]ast.Expr(nil), args...), eh.NewIdent(ClockVar))...), nil
	}
}

func celTime(v ref.Val) (time.Time, bool) {
	ts, ok := v.(types.Timestamp)
	return ts.Time, ok
}

func celNow(clock ref.Val) ref.Val {
	t, ok := celTime(clock)
	if !ok {
		return types.NewErr("now: the event's clock is not bound")
	}
	return types.String(t.UTC().Format(time.RFC3339))
}

// celDig walks target along the dot-separated path.
func celDig(target, path ref.Val) ref.Val {
	p, ok := path.(types.String)
	if !ok {
		return types.NewErr("dig: the path must be a string")
	}
	cur := target
	segments := 0
	for _, raw := range strings.Split(strings.TrimSpace(string(p)), ".") {
		part := strings.TrimSpace(raw)
		if part == "" {
			continue
		}
		if segments++; segments > celMaxDigSegments {
			return types.NullValue
		}
		switch x := cur.(type) {
		case traits.Mapper:
			next, found := x.Find(types.String(part))
			if !found {
				return types.NullValue
			}
			cur = next
		case traits.Lister:
			idx, err := strconv.Atoi(part)
			n, _ := x.Size().(types.Int)
			if err != nil || idx < 0 || idx >= int(n) {
				return types.NullValue
			}
			cur = x.Get(types.Int(idx))
		default:
			return types.NullValue
		}
	}
	if types.IsError(cur) {
		return types.NullValue
	}
	return cur
}

// celFindCondition returns the status of the first map in list whose
// "type" is condType ("Unknown" when its status is not a string) and the
// condition itself, or ("Unknown", nil) when none matches.
func celFindCondition(list ref.Val, condType ref.Val) (string, traits.Mapper) {
	l, ok := list.(traits.Lister)
	if !ok {
		return "Unknown", nil
	}
	for it := l.Iterator(); it.HasNext() == types.True; {
		m, ok := it.Next().(traits.Mapper)
		if !ok {
			continue
		}
		if t, found := m.Find(types.String("type")); !found || t.Equal(condType) != types.True {
			continue
		}
		if s, found := m.Find(types.String("status")); found {
			if str, ok := s.(types.String); ok {
				return string(str), m
			}
		}
		return "Unknown", m
	}
	return "Unknown", nil
}

func celConditionStatus(list, condType ref.Val) ref.Val {
	status, _ := celFindCondition(list, condType)
	return types.String(status)
}

// celConditionSeconds is the age in whole seconds of the condition's
// last_transition_time at now, or -1.
func celConditionSeconds(list, condType, clock ref.Val) (string, int64) {
	status, cond := celFindCondition(list, condType)
	now, ok := celTime(clock)
	if cond == nil || !ok {
		return status, -1
	}
	v, found := cond.Find(types.String(celConditionTimeField))
	if !found {
		return status, -1
	}
	s, ok := v.(types.String)
	if !ok {
		return status, -1
	}
	t, err := time.Parse(time.RFC3339, string(s))
	if err != nil {
		return status, -1
	}
	return status, int64(now.Sub(t).Seconds())
}

func celConditionAge(args ...ref.Val) ref.Val {
	_, age := celConditionSeconds(args[0], args[1], args[2])
	return types.Int(age)
}

func celStableFor(args ...ref.Val) ref.Val {
	threshold, ok := args[2].(types.Int)
	if !ok {
		return types.NewErr("stableFor: seconds must be an int")
	}
	status, age := celConditionSeconds(args[0], args[1], args[3])
	if status != "True" || age < 0 {
		return types.False
	}
	return types.Bool(age >= int64(threshold))
}

func celStatusFeedbackValue(feedback, name ref.Val) ref.Val {
	m, ok := feedback.(traits.Mapper)
	if !ok {
		return types.String("")
	}
	values, found := m.Find(types.String("values"))
	if !found {
		return types.String("")
	}
	l, ok := values.(traits.Lister)
	if !ok {
		return types.String("")
	}
	for it := l.Iterator(); it.HasNext() == types.True; {
		entry, ok := it.Next().(traits.Mapper)
		if !ok {
			continue
		}
		if n, found := entry.Find(types.String("name")); !found || n.Equal(name) != types.True {
			continue
		}
		fv, found := entry.Find(types.String("fieldValue"))
		if !found {
			continue
		}
		fm, ok := fv.(traits.Mapper)
		if !ok {
			continue
		}
		if s, found := fm.Find(types.String("string")); found {
			if str, ok := s.(types.String); ok {
				return str
			}
		}
	}
	return types.String("")
}

func celTriState(t, f ref.Val) ref.Val {
	if t == types.True {
		return types.String("True")
	}
	if f == types.True {
		return types.String("False")
	}
	return types.String("Unknown")
}

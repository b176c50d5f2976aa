package celenv

import (
	"encoding/json"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

const celToJSONOverload = "toJson_dyn"

// celToJSON encodes v as JSON with encoding/json, as hyperfleet-adapter's
// toJson does, so the bytes are its bytes and the same from any build:
// compact, map keys sorted, integral doubles as integers, <, > and &
// escaped as \u003c, \u003e and \u0026, NaN and infinities an error.
// Values the anchor encodes as something else than the value (see
// celJSONValue) are encoded as their Go counterparts. The encoded size is
// bounded first by walking v (celJSONBound); a result past
// tmpl.MaxFuncBytes is an error naming toJson and the limit, before
// anything is converted or encoded.
func celToJSON(v ref.Val) ref.Val {
	if n := celJSONBound(v, tmpl.MaxFuncBytes); n > tmpl.MaxFuncBytes {
		return types.NewErr("toJson: the result would be over the function result limit of %d bytes", tmpl.MaxFuncBytes)
	}
	native, err := celJSONValue(v)
	if err != nil {
		return types.NewErr("toJson: %v", err)
	}
	b, err := json.Marshal(native)
	if err != nil {
		return types.NewErr("toJson: %v", err)
	}
	return types.String(b)
}

// trackCELToJSON is toJson's runtime cost: one per byte of the result, so
// the cost limit sees what nested calls build.
func trackCELToJSON(_ []ref.Val, result ref.Val) *uint64 {
	cost := uint64(1)
	if s, ok := result.(types.String); ok {
		cost += uint64(len(s))
	}
	return &cost
}

// estimateCELToJSON is toJson's check-time estimate: the size of a dyn
// value is unknown, so the cost is too; the result is at most
// tmpl.MaxFuncBytes.
func estimateCELToJSON(_ checker.CostEstimator, _ *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if len(args) != 1 {
		return nil
	}
	size := checker.SizeEstimate{Min: 1, Max: tmpl.MaxFuncBytes}
	return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1 + tmpl.MaxFuncBytes}, ResultSize: &size}
}

// celJSONBound is an upper bound of the JSON size of v, walking at most
// until the bound passes limit.
func celJSONBound(v ref.Val, limit int) int {
	w := celBounder{limit: limit}
	w.add(v)
	return min(w.n, limit+1)
}

type celBounder struct{ n, limit int }

func (w *celBounder) add(v ref.Val) {
	if w.n > w.limit {
		return
	}
	switch x := v.(type) {
	case types.String:
		// encoding/json writes <, > and & as six bytes (\u003c), where
		// JSONStringBound counts one.
		w.n += tmpl.JSONStringBound(string(x)) + 5*strings.Count(string(x), "<") +
			5*strings.Count(string(x), ">") + 5*strings.Count(string(x), "&")
	case types.Bytes:
		w.n += 4*len(x)/3 + 4
	case traits.Mapper:
		w.addMap(x)
	case traits.Lister:
		w.n += 2
		for it := x.Iterator(); it.HasNext() == types.True && w.n <= w.limit; {
			w.n++
			w.add(it.Next())
		}
	default:
		w.n += 32 // numbers, bools, null, timestamps
	}
}

func (w *celBounder) addMap(m traits.Mapper) {
	w.n += 2
	for it := m.Iterator(); it.HasNext() == types.True && w.n <= w.limit; {
		k := it.Next()
		w.n += 3
		w.add(k)
		if val, found := m.Find(k); found {
			w.add(val)
		}
	}
}

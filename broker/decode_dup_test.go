package broker_test

import (
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// A member given twice anywhere inside data, or a binary-mode attribute
// given under two spellings with two values, is an invalid event naming it
// (issue 28 #9): before, the last duplicate won ({"id":"c1","id":"c2"}
// reconciled c2) and ce-id / ce_id decoded to either id at random.
func TestDecodeRefusesDuplicates(t *testing.T) {
	structured := func(data string) *fixtureMessage {
		return &fixtureMessage{id: "m", body: []byte(`{"specversion":"1.0","id":"e","type":"t","source":"s","data":` + data + `}`)}
	}
	binary := func(attrs map[string]string, data string) *fixtureMessage {
		a := map[string]string{"ce-specversion": "1.0", "ce-type": "t", "ce-source": "s"}
		for k, v := range attrs {
			a[k] = v
		}
		return &fixtureMessage{id: "m", body: []byte(data), attrs: a}
	}
	cases := []struct {
		name string
		msg  *fixtureMessage
		want string // "" = accepted
	}{
		{"top-level member twice", structured(`{"id":"c1","id":"c2","kind":"Cluster","generation":1}`), `"id" is given twice`},
		{"nested member twice", structured(`{"id":"c1","kind":"Cluster","generation":1,"owner_references":{"id":"a","id":"b"}}`), `"owner_references.id" is given twice`},
		{"member twice in an array's object", structured(`{"id":"c1","kind":"Cluster","generation":1,"l":[{"x":1,"x":2}]}`), `"l[0].x" is given twice`},
		{"same key in two objects", structured(`{"id":"c1","kind":"Cluster","generation":1,"a":{"x":1},"b":{"x":2}}`), ""},
		{"binary data member twice", binary(map[string]string{"ce-id": "e"}, `{"id":"c1","id":"c2"}`), `"id" is given twice`},
		{"ce-id and ce_id differ", binary(map[string]string{"ce-id": "e1", "ce_id": "e2"}, `{"id":"c1"}`), "given twice"},
		{"ce-id and cloudEvents:id differ", binary(map[string]string{"ce-id": "e1", "cloudEvents:id": "e2"}, `{"id":"c1"}`), "given twice"},
		{"ce-type and CE-TYPE differ", binary(map[string]string{"ce-id": "e", "CE-TYPE": "t2"}, `{"id":"c1"}`), "given twice"},
		{"ce-id and ce_id agree", binary(map[string]string{"ce-id": "e1", "ce_id": "e1"}, `{"id":"c1"}`), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 20 { // map order: a random winner shows within a few runs
				ev, err := broker.Decode(c.msg)
				if c.want == "" {
					if err != nil {
						t.Fatalf("Decode: %v", err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("Decode = %v, %v; want an invalid event containing %q", ev.ID, err, c.want)
				}
			}
		})
	}
}

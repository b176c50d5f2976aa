package memmaestro

import "fmt"

// callError wraps sentinel with the call it ended and an optional detail:
// "memmaestro: verb consumer/name: <sentinel>[: detail]".
func callError(verb, consumer, name string, sentinel error, detail string) error {
	c := Call{Verb: verb, Consumer: consumer, Name: name}
	if detail == "" {
		return fmt.Errorf("%s: %w", c, sentinel)
	}
	return fmt.Errorf("%s: %w: %s", c, sentinel, detail)
}

package main

import (
	"maps"
	"testing"
)

// TestParseQueueHeld: the run's queue and its retry queues are counted;
// the dead-letter queue (taken by deadLetters), other runs' queues and
// lines that are not "name<TAB>count" are not.
func TestParseQueueHeld(t *testing.T) {
	out := "name\tmessages\n" +
		"soak-1-soak\t2\n" +
		"soak-1-soak.retry.16s\t1\n" +
		"soak-1-soak.dead-letter\t7\n" +
		"soak-1-soakother\t5\n" +
		"soak-2-soak.retry.16s\t3\n" +
		"garbage\n"
	got := parseQueueHeld(out, "soak-1-soak")
	want := map[string]int{"soak-1-soak": 2, "soak-1-soak.retry.16s": 1}
	if !maps.Equal(got, want) {
		t.Errorf("parseQueueHeld = %v, want %v", got, want)
	}
}

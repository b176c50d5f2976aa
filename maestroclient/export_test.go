package maestroclient

// PoolClientIndex is the index of the Client of p that every call for the
// bundle consumer/name goes through (for tests that must reach each one).
func PoolClientIndex(p *Pool, consumer, name string) int {
	c := p.client(consumer, name)
	for i := range p.clients {
		if p.clients[i] == c {
			return i
		}
	}
	return -1
}

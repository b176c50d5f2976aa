package memmaestro

import (
	"crypto/sha1"
	"fmt"
)

// manifestWorkGR is the group-resource string Maestro mixes into work ids.
const manifestWorkGR = "manifestworks.work.open-cluster-management.io"

// nameSpaceOID is the RFC 4122 name space for ISO OIDs.
var nameSpaceOID = [16]byte{0x6b, 0xa7, 0xb8, 0x12, 0x9d, 0xad, 0x11, 0xd1,
	0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// workUID is the id Maestro gives the work (consumer, name) of source: the
// version-5 UUID, in the OID name space, of "source-group.resource-consumer-name".
func workUID(source, consumer, name string) string {
	return uuidV5(nameSpaceOID, fmt.Sprintf("%s-%s-%s-%s", source, manifestWorkGR, consumer, name))
}

// uuidV5 implements RFC 4122 section 4.3 with SHA-1.
func uuidV5(space [16]byte, name string) string {
	h := sha1.New()
	h.Write(space[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

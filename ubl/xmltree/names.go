package xmltree

import (
	"sync"
	"sync/atomic"
)

// Name identifies an element or attribute name (namespace URI and local name). Names known to the
// schema tables are registered at start-up and keep one global number, so that comparing names is
// comparing integers; names a document brings that nobody registered are numbered per tree, from
// FirstLocalName up.
type Name uint32

// FirstLocalName is the first number given to names that are not registered.
const FirstLocalName Name = 1 << 24

// NoName is the zero Name: never the name of a node.
const NoName Name = 0

// QName is a namespace URI and a local name.
type QName struct{ Space, Local string }

var registry = struct {
	sync.RWMutex
	names []QName                    // by Name; index 0 unused
	index map[string]map[string]Name // namespace → local → Name
	// published is names as last registered, for reading without the lock: names only grows, and
	// entries below a published length never change.
	published atomic.Pointer[[]QName]
}{names: []QName{{}}, index: map[string]map[string]Name{}}

// Register returns the global Name of (space, local), registering it on first use. Packages register
// the names they know in their init functions.
func Register(space, local string) Name {
	registry.Lock()
	defer registry.Unlock()
	byLocal := registry.index[space]
	if byLocal == nil {
		byLocal = map[string]Name{}
		registry.index[space] = byLocal
	}
	if n, ok := byLocal[local]; ok {
		return n
	}
	n := Name(len(registry.names))
	registry.names = append(registry.names, QName{space, local})
	byLocal[local] = n
	names := registry.names
	registry.published.Store(&names)
	return n
}

// Lookup returns the global Name of a registered name.
func Lookup(space, local string) (Name, bool) {
	registry.RLock()
	defer registry.RUnlock()
	n, ok := registry.index[space][local]
	return n, ok
}

// globalQName is the namespace and local name of a registered Name.
func globalQName(n Name) QName {
	if names := registry.published.Load(); names != nil && int(n) < len(*names) {
		return (*names)[n]
	}
	return QName{}
}

// indexed are the names Tree.Named serves from its per-tree index: the names code looks for among
// descendants, declared at start-up with IndexName. Other names are found by scanning the tree.
var indexed = struct {
	sync.RWMutex
	group []int32 // by Name: its group in the index, 0 when not indexed
	count int32
}{}

// IndexName asks for elements of a registered name to be indexed in every tree (see Tree.Named).
func IndexName(n Name) {
	indexed.Lock()
	defer indexed.Unlock()
	for int(n) >= len(indexed.group) {
		indexed.group = append(indexed.group, 0)
	}
	if indexed.group[n] == 0 {
		indexed.count++
		indexed.group[n] = indexed.count
	}
}

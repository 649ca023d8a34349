package lisp

// How big a value is has two measures in this package, each with one
// name:
//
//   - its weight (weightOf): the length of its text as printed, every
//     shared part counted once per path; what maxValueWeight bounds.
//   - its heap shape (heapShape): its bytes on the Go heap. The allocation
//     charge (builtSize), the read cost (ReadCost, readNodeCost) and the
//     footprint of a kept value (Footprint) are sums of heap shapes: of
//     what a builtin built, of what the reader builds, of all a value
//     holds.
//
// How deep it is, is counted in levels (a collection, or a function
// holding values, is one): the walk's depth, the nesting bounds
// (MaxValueNesting, Env.MaxNesting) and --max-value-depth all count them.
//
// The one table of heap shapes: what each kind of value takes on the Go
// heap besides its parts, as each kind's heapShape method reports it. The
// allocation charged for a value a builtin builds (builtSize, cost.go),
// what a value costs once read (readNodeCost, readcost.go) and what a
// kept value holds (Footprint, footprint.go) all come from it, so a set
// element is the same 16 bytes (and its share of a hash index) to all
// three.
const (
	heapWord    = 8  // a boxed number
	heapBigHead = 48 // a big integer before its words: its value and the big.Int's header
	heapString  = 16 // a string's header, before its bytes (keywords, symbols alike)
	heapNamed   = 32 // a var or a tool function: a pointer and its name's header
	// A collection's header, each kind's Go struct in its size class
	// (TestCollectionHeadersFitTheirSizeClass): a vector's, which a list,
	// a code form and a drop of a sequence share, and a map's or set's.
	heapVectorHead = 48
	heapMapHead    = 64
	heapSetHead    = 64
	heapSlot       = 16  // an element of a vector or set (an interface)
	heapEntry      = 32  // a map entry: its key and its value
	heapClass      = 48  // a record type read from a literal: its name and its field list, besides a slot per field
	heapIndexHead  = 256 // a hash index's first table
	// heapIndexPart is a hash index's bytes per part: a slot of 24 at most
	// 7/8 full, growing by doubling, and a collection key's text besides,
	// which keyTextLimit bounds.
	heapIndexPart = 40
	heapFunction  = 64 // a function value, before what it holds
	heapHeld      = 16 // each value a function holds
	// heapAtom is an atom, volatile or delay: its value, validator,
	// watches, a delay's body and failure, and metadata
	// (TestCollectionHeadersFitTheirSizeClass holds the struct to it).
	heapAtom = 112
	// heapCombined is a function a combinator made (comp, partial, a
	// transducer, memoize): the function value and the Go closure it runs.
	heapCombined = 128
	// heapMemoEntry is a remembered result of a memoized function: an
	// entry of the evaluation's cache, its share of the cache's table and
	// its key's header (the key's text is charged as it is hashed).
	heapMemoEntry = heapEntry + heapIndexPart + heapString
	// heapLazySeq is a lazy sequence before its arguments: its header, the
	// closure that starts a reader and the reader it wraps.
	heapLazySeq = 160
	// heapGenerator is what a reader of a lazy sequence starts per level
	// of derivation: a generator closure and the state it keeps.
	heapGenerator = 96
	// heapDrop is a drop of a sequence (rest, next, drop): its source, its
	// count and where it begins in a walk, 32 bytes each
	// (TestCollectionHeadersFitTheirSizeClass). It holds no generator and
	// no chain of the drops before it, so a walk by rest leaves each step
	// behind as garbage.
	heapDrop = 64
	// heapPlace is a place in a walk of a sequence (seqwalk.go): its
	// element, the place after it and, at the frontier, the generator
	// (TestCollectionHeadersFitTheirSizeClass).
	heapPlace = 32
	// heapSorted is what a sorted map or set holds besides a map's or
	// set's shape: the tail of its lineage that carries its order, and
	// the order (its comparator), 16 bytes each.
	heapSorted = 32
	// heapNestedKey is what hashing a key that holds collections builds
	// besides its text and orderings, each time: the list of its
	// structural hashes, the running hashes of its walk, and their
	// growth.
	heapNestedKey = 384
	// heapOrderedElem is what ordering one part of a set of a key holding
	// collections builds: its hash beside it, sorted (24 bytes), and its
	// place in the order (16). heapOrderedEntry is that of a map's entry:
	// its key gathered (16), ordered (40) and copied with its value (32).
	heapOrderedElem  = 40
	heapOrderedEntry = 88
	// heapKeyLevel is a level of the three walks that measure, order and
	// write a key (a walkLevel of 88 bytes each, in stacks that grow by
	// doubling).
	heapKeyLevel = 3 * 2 * 88
	// heapCaughtError is what an interpreter's error a program catches
	// allocates besides its messages: the error, its position, the
	// exception value and the description of the refused value;
	// heapCaughtErrorByte is per byte of its messages (formatted,
	// described, copied).
	heapCaughtError     = 256
	heapCaughtErrorByte = 4
	// heapThrown is an exception ex-info or a Java constructor makes:
	// its message, class and data, before the data itself.
	heapThrown = 112
	heapRegex  = 256 // a compiled regex, before its programs (regexHeld)
	// heapDefinition is what a name's first definition keeps besides
	// its value: its global in the evaluation (a binding and its flags,
	// 128), the binding memory keeps after it (96), an entry in each
	// one's table of names with the table's doubling (64 each) and its
	// places in the orders of definition (32). (def a 1) kept 228 bytes
	// while the program ran, and was charged nothing.
	heapDefinition = 128 + 96 + 2*64 + 32
	// heapToolCall is a tool call a program makes, kept for the turn's
	// record: its name, arguments and result as the record holds them.
	heapToolCall = 256
	// heapPrintLine is a line a program prints, kept for the turn's
	// record, before its text.
	heapPrintLine = 32
)

// collHeap is a kind of collection as the heap holds it: its header and
// the bytes of each part. A list and a code form are held as a vector is.
type collHeap uint8

const (
	vectorHeap collHeap = iota
	setHeap
	mapHeap
)

// head is the kind's header.
func (c collHeap) head() int64 {
	switch c {
	case mapHeap:
		return heapMapHead
	case setHeap:
		return heapSetHead
	}
	return heapVectorHead
}

// part is the bytes of one part: a map's entry, or a slot.
func (c collHeap) part() int64 {
	if c == mapHeap {
		return heapEntry
	}
	return heapSlot
}

// shape is a collection of this kind of n parts, with a hash index or
// not; a count a program chose saturates (bytesFor) rather than wraps.
func (c collHeap) shape(n int, indexed bool) int64 {
	b := c.head() + bytesFor(c.part(), n)
	if indexed {
		b += heapIndexHead + bytesFor(heapIndexPart, n)
	}
	return b
}

// built is the shape of a collection of this kind of n parts that a
// builtin is about to build: a map or set of more than smallMap parts
// has a hash index, as one of cheap keys (cheapKey) does.
func (c collHeap) built(n int) int64 { return c.shape(n, c != vectorHeap && n > smallMap) }

// funcShape is a function holding n values.
func funcShape(n int) int64 { return heapFunction + heapHeld*int64(n) }

// heapShapeOf is v's heap shape (see valueKind).
func heapShapeOf(v Value) int64 { return kindOf(v).heapShape() }

package web

// The view models: one type per page, each embedding Base, which the layout reads. Handlers fill them
// with text that is ready to show (dates, amounts and state names already in the page's language) and
// links that are ready to follow.

// Base is what every page's layout shows.
type Base struct {
	Title    string // the page's own title, already translated
	User     string // the signed-in username; empty on the sign-in page
	Support  bool   // the user is of the support team
	Entity   *EntityChoice
	Entities []EntityChoice // the entities the user can switch to (more than one)
	Nav      []NavLink
	Flash    *Flash
	Here     string // the current path and query, for forms that come back to it
	LangLink string // the link that switches to the other language
	Issue    string // the link to issue a document; empty when the user may not
}

// B returns the page's Base; every view model has one.
func (b *Base) B() *Base { return b }

// EntityChoice is an entity the user can act for.
type EntityChoice struct {
	Key     string // what the switch form posts
	Name    string
	TaxID   string // with its country prefix
	Role    string // admin, operator, viewer or support, already translated
	Current bool
}

// NavLink is an entry of the main menu.
type NavLink struct {
	Href    string
	Label   string
	Current bool
	Badge   int // a count to show beside it, 0 for none
}

// Flash is the message of the action that led to this page.
type Flash struct {
	Error bool
	Key   string // the message's catalogue key, for scripts and tests
	Text  string
}

// FieldError is why a form's field was refused: the code of the API's registry and its text.
type FieldError struct {
	Code, Text string
}

// LoginPage is the sign-in form.
type LoginPage struct {
	Base
	Username  string
	Error     string
	ErrorCode string // the registry's code of Error
	Next      string
}

// DashboardPage is the entity's overview.
type DashboardPage struct {
	Base
	Issued    []StateCount
	Received  []StateCount
	Attention []Attention
	Latest    []DocumentRow
}

// StateCount is a number of documents in a state, linking to their list.
type StateCount struct {
	Label string
	Count int
	Href  string
}

// Attention is something that needs a person: rejected documents, documents waiting to be sent, …
type Attention struct {
	Key   string // the label's catalogue key, for scripts and tests
	Label string
	Count int
	Href  string
}

// DocumentRow is one document in a table.
type DocumentRow struct {
	Href         string
	Number       string
	Type         string
	Date         string
	Counterparty string
	TaxID        string
	Amount       string
	State        string // the state's key, for its badge's class
	StateLabel   string
}

// ListPage is a table of documents with its filter.
type ListPage struct {
	Base
	Side    string // issued, received, tosend
	Filter  ListFilter
	Kinds   []Option
	States  []Option
	Columns []Column
	Rows    []DocumentRow
	Total   int
	Pager   Pager
	CSV     string
	ZIP     string
}

// ListFilter is the filter form's values, as the URL had them.
type ListFilter struct {
	Number, Kind, NIF, Q, State, From, To, Sort string
	Rows                                        int
}

// Option is one choice of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// Column is a table heading; a sortable one links to its order.
type Column struct {
	Label  string
	Href   string // empty when the column does not sort
	Sorted string // "ascending", "descending" or ""
}

// Pager links to the neighbouring pages of a list.
type Pager struct {
	Page, Pages int
	Prev, Next  string // empty at either end
	First, Last int    // the rows shown, 1-based
}

// AccountPage is the user's own settings: password and sessions.
type AccountPage struct {
	Base
	Username string
	Roles    []EntityChoice
	Sessions []SessionRow
	Errors   map[string]*FieldError // by field
}

// SessionRow is one signed-in browser.
type SessionRow struct {
	ID        string
	Created   string
	LastSeen  string
	UserAgent string
	Address   string
	Current   bool
}

// ErrorPage says why a page cannot be shown.
type ErrorPage struct {
	Base
	Status  int
	Message string
}

// ValidatePage checks a UBL file against the official rules without issuing it.
type ValidatePage struct {
	Base
	Profiles []Option
	Error    string
	Report   *ValidationReport
}

// ValidationReport is the verdict on one file.
type ValidationReport struct {
	File     string
	Accepted bool
	Root     string
	Profile  string
	Schema   bool
	Fatal    int
	Warnings int
	Reason   string // why no verdict could be given, when none could
	Findings []FindingRow
}

// FindingRow is one finding: its flag, rule id, message and where in the document.
type FindingRow struct {
	Flag, Rule, Message, Location string
}

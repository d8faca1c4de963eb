package web

// The view models of an entity's settings (/portal/settings/…): one page with a menu of sections,
// each section a few forms and tables. Forms are described field by field so that one template writes
// them all with their labels and errors.

// SettingsPage is one section of an entity's settings.
type SettingsPage struct {
	Base
	Sections []NavLink
	Section  string      // profile, mail, notifications, webhooks, processstates, rules, seal, users
	Intro    string      // what the section is for
	Error    *FieldError // a refused action that is not about one field of a form
	Forms    []Form

	Webhooks      []WebhookRow
	Deliveries    []DeliveryRow
	ProcessStates []ProcessStateRow
	Rules         []string   // the recipient rules, described
	Seal          *SealBlock // nil when the section is not the seal's
	Users         []UserRow
}

// Form is a POST form: its fields in order and its button.
type Form struct {
	ID     string // the form's heading id, for its aria-labelledby
	Title  string
	Action string
	Submit string
	Fields []FormField
}

// FormField is one input of a form.
type FormField struct {
	Name     string
	Label    string
	Type     string // text, email, tel, url, password, checkbox, select, textarea
	Value    string
	Checked  bool
	Options  []Option // a select's, or a group of checkboxes' (Type "checkboxes")
	Required bool
	Hint     string
	Error    *FieldError
}

// WebhookRow is a webhook with its own edit form and action buttons.
type WebhookRow struct {
	ID      string
	URL     string
	Events  string
	Created string
	Edit    Form
}

// DeliveryRow is one attempt of the webhooks' delivery log.
type DeliveryRow struct {
	ID      string
	When    string
	Event   string
	URL     string
	Attempt int
	Status  string // the HTTP status, or "—" when there was no answer
	OK      bool
	Latency string
	Error   string
}

// ProcessStateRow is one of the entity's process states.
type ProcessStateRow struct {
	Code, Name, Description string
}

// SealBlock describes the entity's seal; Missing when it has none.
type SealBlock struct {
	Missing     bool
	Subject     string
	Issuer      string
	Serial      string
	NotBefore   string
	NotAfter    string
	DaysLeft    int
	Expired     bool
	ExpiresSoon bool // within 30 days
}

// UserRow is one of the entity's users, with its role form.
type UserRow struct {
	Username string
	Role     string // the role's key
	Roles    []Option
	Disabled bool
	Self     bool // the signed-in user: no actions on itself
	Others   bool // belongs to other entities too
}

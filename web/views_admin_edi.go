package web

// The view models of the support console's EDI pages: the AS2 identity and partners, the upstream
// brokers and the EDI delivery queue.

// AS2Page is this installation's AS2 identity, with the import form, and the AS2 partners, with the
// forms that create, change and delete them.
type AS2Page struct {
	Console
	Identity AS2IdentityRow
	Partners []AS2PartnerRow
	Signs    []Option // signature digests
	Ciphers  []Option
	MDNs     []Option // MDN modes
}

// AS2IdentityRow is the installation's AS2 id and certificate (never its key).
type AS2IdentityRow struct {
	AS2ID, Subject, NotBefore, NotAfter, Fingerprint string
	Certificate                                      string // PEM
}

// AS2PartnerRow is an AS2 partner as its row and edit form show it.
type AS2PartnerRow struct {
	Name, AS2ID, URL        string
	Sign, Cipher, MDN       string
	Compress                bool
	CertSubject, CertExpiry string // of its certificate, when it reads
	Updated                 string
}

// UpstreamsPage lists the upstream brokers (never their secrets), with the forms that create and
// delete them.
type UpstreamsPage struct {
	Console
	Rows []UpstreamRow
}

// UpstreamRow is an upstream broker.
type UpstreamRow struct {
	Name, BaseURL, ClientID, Created string
}

// EDIPage is the EDI delivery queue, newest first, filtered by state.
type EDIPage struct {
	Console
	States []Option
	Rows   []EDIRow
	Limit  int // how many rows at most the page shows
}

// EDIRow is one delivery to an EDI partner.
type EDIRow struct {
	Document, Version, Kind, Via, To string
	MessageID, State, StateLabel     string
	Attempts, NextTry, Error         string
	Created                          string
}

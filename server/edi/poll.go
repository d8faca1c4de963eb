package edi

import "context"

// Poller is a connector that learns what became of the messages it delivered by asking the partner
// (an upstream broker's states report) rather than being told through the Inbox.
type Poller interface {
	// Poll returns what changed at the partner since the changes last confirmed, oldest first.
	Poll(ctx context.Context, partner string) ([]Update, error)
	// Confirm tells the partner the updates were applied, so that Poll does not return them again.
	Confirm(ctx context.Context, partner string, updates []Update) error
}

// Update is a later state of a delivered message, as the eSPap status code it amounts to.
type Update struct {
	EventID     string // the partner's id of the change
	RemoteID    string // the partner's id of the delivered message (Receipt.RemoteID)
	Code        string // ACCEPTED, ERROR, 14, 22, 11, 30, 33 or 29
	Description string
}

package portal

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"einvoice/server"
	"einvoice/server/i18n"
	"einvoice/store"
	"einvoice/web"
)

// What the document page tells of a document's life: its timeline, the reasons it was rejected or
// came back, its e-mails and the verdicts on its signatures.

// timeline is the history as the page shows it, newest last, and the reasons given (rejections, the
// EDI network's errors) with the rules and status codes they name.
func timeline(history []store.HistoryEntry, lang string) (events []web.Event, reasons []web.Reason) {
	for _, h := range history {
		var data map[string]string
		json.Unmarshal(h.Data, &data) // entries without data, or with other values, show without them
		e := web.Event{When: h.CreatedAt, Kind: h.Kind}
		reason := data["reason"]
		switch h.Kind {
		case "state":
			e.What = i18n.T(lang, "event.state", i18n.T(lang, "state."+h.State))
			if status := data["to_send_status"]; status != "" && i18n.Has("tosend."+status) {
				e.Detail = i18n.T(lang, "tosend."+status)
			}
		case "edi":
			e.What = i18n.T(lang, "event.edi", i18n.T(lang, "edi."+h.Description))
			if key := "api.history." + h.Description; i18n.Has(key) { // a delivery attempt: what became of it, through whom
				e.What = i18n.T(lang, key)
				e.Detail = strings.TrimSpace(data["partner"] + " " + data["message_id"] + " " + data["error"])
			}
		case "email":
			e.Kind = h.Description // email_queued, email_sent, email_retry, email_failed, email_returned, email_opened
			e.What = i18n.T(lang, "event.email", h.Description)
			if key := "event." + h.Description; i18n.Has(key) {
				e.What = i18n.T(lang, key)
			}
			e.Detail = strings.TrimSpace(data["address"] + " " + data["error"])
		case "edit":
			e.What = i18n.T(lang, "event.edit")
		case "import":
			e.What = i18n.T(lang, "event.import")
		case "process_state":
			e.What = i18n.T(lang, "event.process_state")
			e.Detail = strings.TrimSpace(data["identification_code"] + " " + data["name"])
		default:
			e.What, e.Detail = h.Kind, h.Description
		}
		if reason != "" {
			e.Detail = strings.TrimSpace(e.Detail + " " + reason)
			r := web.Reason{When: h.CreatedAt, State: i18n.T(lang, "state."+h.State), Text: reason, Rules: ruleIDs(reason)}
			if h.Kind == "edi" {
				r.State = i18n.T(lang, "edi."+h.Description)
			}
			if code := data["edi_status"]; code != "" {
				r.Rules = append([]string{"eSPap " + code}, r.Rules...)
			}
			reasons = append(reasons, r)
		}
		events = append(events, e)
	}
	return events, reasons
}

// reRuleID finds the ids of official and service rules in a reason's text (BR-CO-15, PT-R-001,
// DT-CIUS-PT-098.3, PEPPOL-EN16931-R001, UBL-CR-001, EINV-XSD-01, …).
var reRuleID = regexp.MustCompile(`\b(?:BR|PT|DT|PEPPOL|UBL|CII|EINV)(?:-[A-Z0-9]+)*-[A-Z]*[0-9]+(?:\.[0-9]+)?\b`)

// ruleIDs are the rule ids a text names, each once.
func ruleIDs(text string) []string {
	var out []string
	for _, id := range reRuleID.FindAllString(text, 20) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// emailRows are the document's e-mails as the issuer sees them.
func emailRows(emails []store.Email, lang string) []web.EmailRow {
	var out []web.EmailRow
	for _, e := range emails {
		out = append(out, web.EmailRow{Address: e.Address, State: e.State, StateLabel: i18n.T(lang, "email."+e.State),
			Sent: e.SentAt, Opened: e.OpenedAt, Error: e.LastError})
	}
	return out
}

// signatureBadges are the verdicts on the document's signatures: XAdES for the XML, PAdES for the PDF.
func signatureBadges(sigs []server.Signature, lang string) []web.SignatureBadge {
	var out []web.SignatureBadge
	for _, s := range sigs {
		kind := "XAdES"
		if s.File == store.FilePDF {
			kind = "PAdES"
		}
		out = append(out, web.SignatureBadge{Kind: kind, State: s.State, Label: i18n.T(lang, "signature."+s.State), Signer: s.Signer})
	}
	return out
}

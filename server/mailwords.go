package server

import (
	"einvoice/mailer"
	"einvoice/server/i18n"
)

// mailWords are an e-mail's words in lang, from the catalogue.
func mailWords(lang string) mailer.Words {
	if lang != i18n.EN {
		lang = i18n.PT
	}
	t := func(key string) string { return i18n.T(lang, "mail."+key) }
	return mailer.Words{Lang: lang, Greeting: t("greeting"), Intro: t("intro"), IssuedBy: t("issued_by"),
		IssuedOn: t("issued_on"), NIF: t("nif"), Payable: t("payable"), DueDate: t("due_date"), ATCUD: t("atcud"),
		Attached: t("attached"), Signed: t("signed"), XMLAttached: t("xml_attached"), ReplyNote: t("reply_note"),
		Footer: t("footer"), DocumentOf: t("document_of"), DecimalComma: lang == i18n.PT}
}

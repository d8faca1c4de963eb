package server

import (
	"time"

	"einvoice/server/i18n"
	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// connectionView is an external connection request as spec 2.2 shows it.
type connectionView struct {
	ID                string        `json:"id"`
	Person            string        `json:"person"`
	Reference         string        `json:"reference"`
	CreatedEntityName string        `json:"created_entity_name"`
	State             codedValue    `json:"state_external_connection"`
	Type              codedValue    `json:"type_external_connection"`
	CreatedEntity     entityBrief   `json:"created_entity"`
	ReceiverEntity    entityBrief   `json:"receiver_entity"`
	Observation       string        `json:"observation"`
	Partner           string        `json:"partner"`
	Reason            *reasonView   `json:"reason,omitempty"`
	AdminObservation  *adminObsView `json:"admin_observation,omitempty"`
	CreatedAt         string        `json:"created_at"`
	UpdatedAt         string        `json:"updated_at"`
}

type codedValue struct {
	ID          string `json:"id"`
	Alias       string `json:"alias"`
	Description string `json:"description"`
}

type entityBrief struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	NIF  string `json:"nif"`
}

type reasonView struct {
	Reason    string `json:"reason"`
	CreatedAt string `json:"created_at"`
}

type adminObsView struct {
	Observation string `json:"observation"`
	CreatedAt   string `json:"created_at"`
}

// Connection states and types as the API numbers them; their texts are the catalogue's api.connection.*.
var (
	connectionStates = map[string]string{store.ConnAnalyzing: "1", store.ConnApproved: "2", store.ConnDeclined: "3", store.ConnPending: "4"}
	connectionTypes  = map[string]string{"standard": "1", "inbound": "2"}
)

// describe is a connection's state or type as the API shows it.
func describe(kind string, ids map[string]string, alias, lang string) codedValue {
	return codedValue{ID: ids[alias], Alias: alias, Description: i18n.T(lang, "api.connection."+kind+"."+alias)}
}

func viewConnection(c store.Connection, lang string) connectionView {
	v := connectionView{
		ID: c.PublicID, Person: c.Person, Reference: c.Reference, CreatedEntityName: c.From.Name,
		State:          describe("state", connectionStates, c.State, lang),
		Type:           describe("type", connectionTypes, c.Kind, lang),
		CreatedEntity:  entityBrief{c.From.PublicID, c.From.Name, c.From.NIF},
		ReceiverEntity: entityBrief{c.To.PublicID, c.To.Name, c.To.NIF},
		Observation:    c.Observation, Partner: c.Partner, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
	if c.Reason != "" {
		v.Reason = &reasonView{c.Reason, c.ReasonAt}
	}
	if c.AdminObservation != "" {
		v.AdminObservation = &adminObsView{c.AdminObservation, c.AdminObservationAt}
	}
	return v
}

// getConnection is GET /apps/external-connections/{id}: a request the acting entity is part of or
// asked for as the EDI operator, or 404.
func (s *Server) getConnection(c echo.Context) error {
	id, err := s.store.ParsePublicID(store.KindConnection, c.Param("id"))
	if err != nil {
		return fail(CodeNotFound)
	}
	conn, err := s.store.ConnectionByID(c.Request().Context(), id)
	me := actingEntity(c).ID
	if err == store.ErrNotFound || err == nil && conn.From.ID != me && conn.To.ID != me && conn.OperatorEntityID != me {
		return fail(CodeNotFound)
	}
	if err != nil {
		return err
	}
	return respondData(c, "true", viewConnection(conn, langOf(c)))
}

// listConnections is GET /apps/external-connections with the filters and paginator of spec 4.6.
func (s *Server) listConnections(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	f := store.ConnectionFilter{
		EntityID: actingEntity(c).ID, Reference: c.QueryParam("reference"),
		ReceiverNIF: c.QueryParam("receiver_entity_nif"), CreatedNIF: c.QueryParam("created_entity_nif"),
		Offset: p.offset(), Limit: p.rows,
	}
	errs := FieldErrors{}
	for name, dst := range map[string]*string{"created_at_start": &f.CreatedAfter, "created_at_end": &f.CreatedUntil} {
		if v := c.QueryParam(name); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				errs[name] = Problem{Code: CodeInvalidValue}
			}
			*dst = v
		}
	}
	switch c.QueryParam("order") {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		errs["order"] = Problem{Code: CodeInvalidValue}
	}
	if len(errs) > 0 {
		return errs
	}
	conns, total, err := s.store.FindConnections(c.Request().Context(), f)
	if err != nil {
		return err
	}
	views := make([]connectionView, len(conns))
	for i, conn := range conns {
		views[i] = viewConnection(conn, langOf(c))
	}
	return c.JSON(200, success{Success: "true", Response: s.paginate(c, p, total, len(views), views)})
}

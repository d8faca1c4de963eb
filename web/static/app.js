// Comfort only: every page works without it. A select marked data-autosubmit submits its form when
// changed, so switching entity needs no extra click.
document.addEventListener("change", function (e) {
  var el = e.target;
  if (el.matches && el.matches("select[data-autosubmit]") && el.form) {
    el.form.submit();
  }
});

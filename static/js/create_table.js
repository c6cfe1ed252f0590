// The create-table form: picking a rule set in the list shows its options at once.
//
// The page carries every other rule set's options in inert <template data-options-of=KEY>
// elements; this swaps the chosen one into #create-options and records which rule set's
// options the form now shows (the hidden options_for field, which the server checks: without
// this script it shows the new rule set's options instead of creating a table).

const form = document.querySelector("form[data-create-table]");
const select = form?.querySelector("[data-variant-select]");
const shown = form?.querySelector("[data-options-for]");
const slot = document.getElementById("create-options");

function show(key) {
  if (!slot || !shown || slot.dataset.optionsOf === key) return;
  const source = document.querySelector(`template[data-options-of="${CSS.escape(key)}"]`);
  if (!source) return; // an unknown key: leave the form to the server
  // The options on the page now go back into a template, so that picking them again
  // restores them as they were left.
  const previous = document.createElement("template");
  previous.dataset.optionsOf = slot.dataset.optionsOf;
  previous.content.append(...slot.childNodes);
  source.after(previous);
  slot.append(source.content.cloneNode(true));
  source.remove();
  slot.dataset.optionsOf = key;
  shown.value = key;
}

if (select) {
  select.addEventListener("change", () => show(select.value));
  // A browser that restored the form (back button) may show another rule set than the options.
  show(select.value);
}

/* Draws every explorable figure of the page (attncore.book.explorable) with Vega-Embed, from
   the specification and data the page carries: nothing is fetched. Each slider moves over the
   indices of its grid; the label of the selected value is shown beside it (after every input
   and change event) and given to screen readers as aria-valuetext. The figure element keeps its Vega view as `attncoreView` and is
   marked data-ready="true" once drawn (the browser tests wait for it). */
(function () {
  "use strict";

  function labelSliders(figure, sliders) {
    figure.querySelectorAll(".vega-bind input[type=range]").forEach(function (input) {
      var labels = sliders[input.name];
      if (!labels) {
        return;
      }
      var shown = input.nextElementSibling;
      function update() {
        var text = labels[Number(input.value)];
        input.setAttribute("aria-valuetext", text);
        if (shown) {
          shown.textContent = text;
        }
      }
      // Vega writes the raw index beside the slider on "change" (a release, an arrow key),
      // after its own "input" handler: the label is written again on both.
      input.addEventListener("input", update);
      input.addEventListener("change", update);
      update();
    });
  }

  function draw(figure) {
    var spec = JSON.parse(figure.querySelector("script.attncore-explorable-spec").textContent);
    var view = figure.querySelector(".attncore-explorable-view");
    var sliders = ((spec.usermeta || {}).attncore || {}).sliders || {};
    return vegaEmbed(view, spec, { actions: false, renderer: "svg" })
      .then(function (result) {
        figure.attncoreView = result.view;
        labelSliders(figure, sliders);
        figure.dataset.ready = "true";
      })
      .catch(function (error) {
        view.textContent = "This figure could not be drawn: " + error;
        figure.dataset.ready = "failed";
      });
  }

  function drawAll() {
    document.querySelectorAll(".attncore-explorable").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();

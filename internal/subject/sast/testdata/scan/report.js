// Builds a sales report for the month the caller names.
const { exec } = require("child_process");

function report(req, res) {
  const month = req.query.month;
  exec("make-report --month " + month, (err, out) => {
    res.end(err ? "failed" : out);
  });
}

module.exports = { report };

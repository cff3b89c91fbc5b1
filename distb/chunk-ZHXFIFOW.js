// dist/cli/command.js
function verb(options, run) {
  return { options: (deps, flags, args) => options(deps, flags, args), run };
}

export {
  verb
};

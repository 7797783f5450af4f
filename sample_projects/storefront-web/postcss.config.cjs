// PostCSS pipeline: nesting and autoprefixer only.
module.exports = {
  plugins: {
    "postcss-nesting": {},
    autoprefixer: {},
  },
};

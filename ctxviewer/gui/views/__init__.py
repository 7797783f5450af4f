"""The window's views, one module each: the tabs (context, compare, computed, what-if, window,
findings, prompt, session, sections, trimming, task), the budget controls, the project outline, the
tracker and search panels and the problems banner.
"""

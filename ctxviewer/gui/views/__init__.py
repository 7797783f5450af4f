"""The window's views, one module each: the tabs (context, compare, computed, what-if, window,
findings, session), the budget controls, the project outline and the side panels.
"""

"""anonlab.attacks"""

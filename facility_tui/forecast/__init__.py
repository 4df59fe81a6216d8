"""The danger forecast: a fight played out many times from where it stands, by the rules'
own engine, and what the plays tell.
"""

#!/usr/bin/env bash
git init -q .

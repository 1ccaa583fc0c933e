{-# LANGUAGE BangPatterns, CPP, OverloadedStrings #-}
-- | E1, the bindings study (seed 000) through Haskell's database bindings: per engine, how to
-- load `testdata` (untimed) and the two timed operations of harness/workloads/bindings.py,
-- `SELECT id FROM testdata` folded over row by row or materialised first, summed.
--
-- Engines (harness/engines/haskell_engines.py names them): sqlite/hdbc (HDBC-sqlite3),
-- sqlite/persistent (persistent-sqlite's Database.Sqlite, the lowest-level SQLite binding
-- Debian packages; direct-sqlite, the seed's, is not packaged), postgresql/hdbc
-- (HDBC-postgresql) and postgresql/simple (postgresql-simple).
module Bindings
  ( Conn (..)
  , openConn
  , engineNames
  , driverVersion
  , selectIds
  ) where

import Control.Monad (forM_, void)
import qualified Data.ByteString.Char8 as B8
import Data.Int (Int64)
import Data.List (foldl')
import Data.String (fromString)
import qualified Data.Text as T
import qualified Database.HDBC as H
import qualified Database.HDBC.PostgreSQL as HP
import qualified Database.HDBC.Sqlite3 as HS
import qualified Database.PostgreSQL.Simple as PS
import qualified Database.PostgreSQL.LibPQ as PQ
import Database.Persist.PersistValue (PersistValue (..))
import qualified Database.Sqlite as DS

-- | One open connection through one binding, with what E1 needs of it.
data Conn = Conn
  { connLoad :: Int64 -> IO ()
    -- ^ drop and fill testdata with n rows in one transaction (untimed set-up)
  , connFold :: IO Int64
    -- ^ timed: fold over the rows of SELECT id FROM testdata as the binding delivers them
  , connAll :: IO Int64
    -- ^ timed: all rows materialised by the binding, then summed
  , connCount :: IO (Int64, Int64)
    -- ^ untimed replay: rows fetched and values converted by one SELECT id FROM testdata
  , connScalar :: String -> IO Int64
    -- ^ one integer from a one-row query (selftest.wrong)
  , connVersions :: IO [(String, String)]
    -- ^ what the probe reports besides `driverVersion`: library and server versions
  , connHdbc :: Maybe H.ConnWrapper
    -- ^ the HDBC connection, for the application workload (E5) on HDBC engines
  , connClose :: IO ()
  }

engineNames :: [String]
engineNames = ["sqlite/hdbc", "sqlite/persistent", "postgresql/hdbc", "postgresql/simple"]

selectIds :: String
selectIds = "SELECT id FROM testdata"

strs :: [String]
strs = ["a", "ab", "abc", "abcd"]

timestamp :: String
timestamp = "2010-10-10 00:00:00"

createTestdata :: String
createTestdata = "CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)"

row :: Int64 -> (Int64, String, String)
row i = (i, strs !! fromIntegral ((i - 1) `mod` 4), timestamp)

-- | Open `engine`: the SQLite database file `path` (a fresh one in the worker's private
-- directory; ":memory:" for the probe), the DSN for PostgreSQL. Nothing: no such engine here.
openConn :: String -> FilePath -> Maybe String -> IO (Maybe Conn)
openConn engine path dsn = case engine of
  "sqlite/hdbc" -> do
    c <- HS.connectSqlite3 path
    Just <$> hdbcConn "sqlite" c
  "postgresql/hdbc" -> do
    c <- HP.connectPostgreSQL (needDsn dsn)
    Just <$> hdbcConn "server" c
  "sqlite/persistent" -> Just <$> persistentConn path
  "postgresql/simple" -> Just <$> simpleConn (needDsn dsn)
  _ -> return Nothing
  where
    needDsn = maybe (error (engine ++ " needs a server DSN in engine_config (none given)")) id

-- ---------------------------------------------------------------- HDBC (sqlite3, postgresql)

-- | HDBC: every statement runs in a transaction HDBC opens itself; `commit` ends it.
hdbcConn :: H.IConnection c => String -> c -> IO Conn
hdbcConn serverKey c = return Conn
  { connLoad = \n -> do
      void (H.run c "DROP TABLE IF EXISTS testdata" [])
      void (H.run c createTestdata [])
      ins <- H.prepare c "INSERT INTO testdata (id, str, t) VALUES (?, ?, ?)"
      H.executeMany ins [ [H.toSql i, H.toSql s, H.toSql t] | k <- [1 .. n], let (i, s, t) = row k ]
      H.finish ins
      H.commit c
  , connFold = do
      st <- H.prepare c selectIds
      _ <- H.execute st []
      let go :: Int64 -> IO Int64
          go !acc = do
            r <- H.fetchRow st
            case r of
              Just [v] -> go (acc + H.fromSql v)
              Just other -> error ("expected one column, got " ++ show (length other))
              Nothing -> return acc
      total <- go 0
      H.finish st
      return total
  , connAll = do
      -- the seed's selectInts for HDBC (quickQuery' is strict: every row converted first)
      rows <- H.quickQuery' c selectIds []
      return $! foldl' (\acc r -> case r of
                                   [v] -> acc + H.fromSql v
                                   _ -> error "expected one column") 0 rows
  , connCount = do
      rows <- H.quickQuery' c selectIds []
      return (fromIntegral (length rows), fromIntegral (sum (map length rows)))
  , connScalar = \q -> do
      rows <- H.quickQuery' c q []
      case rows of
        [[v]] -> return (H.fromSql v)
        _ -> error ("expected one value from " ++ q)
  , connVersions =
      if serverKey == "server"
        then do
          rows <- H.quickQuery' c "SHOW server_version" []
          H.commit c
          return [ ("libpq_built_against", H.hdbcClientVer c)
                 , ("server", "PostgreSQL " ++ concat [H.fromSql v | [v] <- rows]) ]
        else return [("sqlite", H.dbServerVer c)]
  , connHdbc = Just (H.ConnWrapper c)
  , connClose = H.disconnect c
  }

-- | The binding's packages and versions, as compiled in (the probe reports them without a server).
driverVersion :: String -> String
driverVersion engine = case engine of
  "sqlite/hdbc" -> "HDBC " ++ VERSION_HDBC ++ ", HDBC-sqlite3 " ++ VERSION_HDBC_sqlite3
  "postgresql/hdbc" -> "HDBC " ++ VERSION_HDBC ++ ", HDBC-postgresql " ++ VERSION_HDBC_postgresql
  "sqlite/persistent" -> "persistent-sqlite " ++ VERSION_persistent_sqlite ++ " (Database.Sqlite)"
  "postgresql/simple" -> "postgresql-simple " ++ VERSION_postgresql_simple ++ ", postgresql-libpq "
                         ++ VERSION_postgresql_libpq
  _ -> ""

-- ---------------------------------------------------------------- persistent-sqlite's Database.Sqlite

-- | Database.Sqlite: prepare/step/column over sqlite3_* calls; `column` asks the column's type
-- and converts it into a PersistValue (direct-sqlite's columnInt64 has no counterpart here).
persistentConn :: FilePath -> IO Conn
persistentConn path = do
  c <- DS.open (T.pack path)
  let exec q = do
        st <- DS.prepare c (T.pack q)
        _ <- DS.stepConn c st
        DS.finalize st
      scalar q = do
        st <- DS.prepare c (T.pack q)
        r <- DS.stepConn c st
        v <- case r of
          DS.Row -> DS.column st 0
          DS.Done -> error ("no row from " ++ q)
        DS.finalize st
        case v of
          PersistInt64 x -> return x
          other -> error ("expected an integer from " ++ q ++ ", got " ++ show other)
      foldIds = do
        st <- DS.prepare c (T.pack selectIds)
        let go !acc = do
              r <- DS.stepConn c st
              case r of
                DS.Row -> do
                  v <- DS.column st 0
                  case v of
                    PersistInt64 x -> go (acc + x)
                    other -> error ("expected an integer id, got " ++ show other)
                DS.Done -> return acc
        total <- go 0
        DS.finalize st
        return total
      allRows = do
        st <- DS.prepare c (T.pack selectIds)
        let go acc = do
              r <- DS.stepConn c st
              case r of
                DS.Row -> do
                  vs <- DS.columns st
                  go (vs : acc)
                DS.Done -> return (reverse acc)
        rows <- go []
        DS.finalize st
        return rows
  return Conn
    { connLoad = \n -> do
        exec "DROP TABLE IF EXISTS testdata"
        exec createTestdata
        exec "BEGIN"
        ins <- DS.prepare c "INSERT INTO testdata (id, str, t) VALUES (?, ?, ?)"
        forM_ [1 .. n] $ \k -> do
          let (i, s, t) = row k
          DS.bindInt64 ins 1 i
          DS.bindText ins 2 (T.pack s)
          DS.bindText ins 3 (T.pack t)
          _ <- DS.stepConn c ins
          DS.reset c ins
        DS.finalize ins
        exec "COMMIT"
    , connFold = foldIds
    , connAll = do
        rows <- allRows
        return $! foldl' (\acc r -> case r of
                                     [PersistInt64 x] -> acc + x
                                     other -> error ("expected one integer, got " ++ show other)) 0 rows
    , connCount = do
        rows <- allRows
        return (fromIntegral (length rows), fromIntegral (sum (map length rows)))
    , connScalar = scalar
    , connVersions = do
        v <- DS.prepare c "SELECT sqlite_version()" >>= \st -> do
          _ <- DS.stepConn c st
          x <- DS.column st 0
          DS.finalize st
          return x
        return [ ("sqlite", case v of
                              PersistText t -> T.unpack t
                              other -> show other) ]
    , connHdbc = Nothing
    , connClose = DS.close c
    }

-- ---------------------------------------------------------------- postgresql-simple

-- | postgresql-simple over libpq. `query_` receives the whole result and converts every row
-- (the seed's selectInts); `fold_` is the library's fold: it declares a cursor in a
-- transaction and fetches it in batches (the library's default, 256 rows per FETCH).
simpleConn :: String -> IO Conn
simpleConn dsn = do
  c <- PS.connectPostgreSQL (B8.pack dsn)
  return Conn
    { connLoad = \n -> do
        _ <- PS.execute_ c "DROP TABLE IF EXISTS testdata"
        _ <- PS.execute_ c (fromString createTestdata)
        PS.withTransaction c $
          void (PS.executeMany c "INSERT INTO testdata (id, str, t) VALUES (?, ?, ?)" (map row [1 .. n]))
    , connFold = PS.fold_ c (fromString selectIds) 0 (\ !acc (PS.Only v) -> return $! acc + v)
    , connAll = do
        rows <- PS.query_ c (fromString selectIds) :: IO [PS.Only Int64]
        return $! foldl' (\acc (PS.Only v) -> acc + v) 0 rows
    , connCount = do
        rows <- PS.query_ c (fromString selectIds) :: IO [PS.Only Int64]
        return (fromIntegral (length rows), fromIntegral (length rows))
    , connScalar = \q -> do
        rows <- PS.query_ c (fromString q) :: IO [PS.Only Int64]
        case rows of
          [PS.Only v] -> return v
          _ -> error ("expected one value from " ++ q)
    , connVersions = do
        [PS.Only server] <- PS.query_ c "SHOW server_version" :: IO [PS.Only String]
        libpq <- PQ.libpqVersion
        return [ ("libpq", showLibpq libpq)
               , ("server", "PostgreSQL " ++ server) ]
    , connHdbc = Nothing
    , connClose = PS.close c
    }

showLibpq :: Int -> String
showLibpq v = show (v `div` 10000) ++ "." ++ show (v `mod` 10000)

{-# LANGUAGE BangPatterns, CPP, DeriveGeneric, DeriveDataTypeable, ExistentialQuantification,
             OverloadedStrings, TemplateHaskell, TypeFamilies #-}
-- | E5, the application workload (seed 002, "AcidState vs. The World"), Haskell side: the
-- seed's four operations on its corpora, as harness/workloads/app.py defines them (same schema,
-- corpora, operations and checks), on
--
-- * acid-state: the seed's AcidState back-end, an IxSet of accounts (indexed by id and name,
--   items nested in each account) kept in memory, every update written to acid-state's on-disk
--   event log before `update` returns (the library's durability); the corpus is the initial
--   state, checkpointed to disk untimed;
-- * HDBC (sqlite/hdbc, postgresql/hdbc): the seed's HDBC back-end, every operation in HDBC's
--   `withTransaction` (the seed's `withCommit`: one transaction per operation).
module App
  ( AppBench (..)
  , engineNames
  , hdbcEngines
  , benchmarks
  , setUp
  , driverVersion
  ) where

import Control.DeepSeq (NFData (..), force)
import Control.Exception (evaluate, finally, onException)
import Control.Monad (forM_, void, when)
import Control.Monad.Reader (ask)
import Control.Monad.State (get, put)
import qualified Crypto.KDF.Scrypt as Scrypt
import Crypto.Random (getRandomBytes)
import Data.Acid
import qualified Data.ByteArray.Encoding as BAE
import qualified Data.ByteString as BS
import qualified Data.ByteString.Char8 as B8
import Data.Data (Data, Typeable)
import Data.IORef
import Data.Int (Int64)
import Data.IxSet (Indexable (..), IxSet, ixFun, ixSet, (@=))
import qualified Data.IxSet as Ix
import Data.List (intercalate, sort)
import Data.SafeCopy (base, deriveSafeCopy)
import qualified Database.HDBC as H
import GHC.Generics (Generic)
import System.FilePath ((</>))

import Bindings (Conn (..), openConn)
import Protocol

-- ---------------------------------------------------------------- the corpus (app.py)

corpora :: [(String, (Integer, Integer))]
corpora = [("SM", (0, 42)), ("MD", (1000, 789)), ("LG", (50000, 42)), ("LG2", (50000, 45678))]

itemsPerTarget, firstNewUser, batch :: Integer
itemsPerTarget = 3
firstNewUser = 1000001
batch = 1000

corpusIds :: Integer -> Integer -> [Integer]
corpusIds n target = [1 .. n] ++ [target | target > n]

userRow :: Integer -> (Integer, String, String)
userRow i = (i, "user" ++ show i, "pass" ++ show i)

itemRow :: Integer -> Item
itemRow j = Item ("item" ++ show j) ("comment " ++ show j) "Need" j

-- ---------------------------------------------------------------- the AcidState model (the seed's GoGet)

data Item = Item { itemName :: String, itemComment :: String, itemStatus :: String, itemCount :: Integer }
  deriving (Eq, Ord, Show, Data, Typeable, Generic)

data Account = Account { accountId :: Integer, accountName :: String, accountPassphrase :: String
                       , accountItems :: [Item] }
  deriving (Eq, Ord, Show, Data, Typeable, Generic)

instance NFData Item
instance NFData Account

newtype AccountId = AccountId Integer deriving (Eq, Ord, Show, Data, Typeable)
newtype AccountName = AccountName String deriving (Eq, Ord, Show, Data, Typeable)

instance Indexable Account where
  empty = ixSet [ ixFun (\a -> [AccountId (accountId a)]), ixFun (\a -> [AccountName (accountName a)]) ]

data GoGet = GoGet { accounts :: IxSet Account, lastId :: Integer } deriving (Typeable)

$(deriveSafeCopy 0 'base ''Item)
$(deriveSafeCopy 0 'base ''Account)
$(deriveSafeCopy 0 'base ''AccountId)
$(deriveSafeCopy 0 'base ''AccountName)
$(deriveSafeCopy 0 'base ''GoGet)

newAccount :: String -> String -> Update GoGet Integer
newAccount name pass = do
  GoGet accts lst <- get
  let uid = lst + 1
  put (GoGet (Ix.insert (Account uid name pass []) accts) uid)
  return uid

getAccounts :: Query GoGet [Account]
getAccounts = Ix.toList . accounts <$> ask

addItem :: String -> Item -> Update GoGet Bool
addItem name item = do
  GoGet accts lst <- get
  case Ix.getOne (accts @= AccountName name) of
    Nothing -> return False
    Just a -> do
      put (GoGet (Ix.updateIx (AccountId (accountId a)) a { accountItems = accountItems a ++ [item] } accts) lst)
      return True

accountById :: Integer -> Query GoGet (Maybe Account)
accountById uid = Ix.getOne . (@= AccountId uid) . accounts <$> ask

$(makeAcidic ''GoGet ['newAccount, 'getAccounts, 'addItem, 'accountById])

-- ---------------------------------------------------------------- what Main sees

-- | The timed operation, its check and its counts (crossings, values converted), both run after the clock stops.
data AppBench = forall a. NFData a => AppBench (IO a) (a -> IO (Maybe String)) (a -> IO (Maybe Int64, Maybe Int64))

engineNames :: [String]
engineNames = ["acidstate/acid-state"]

-- | Bindings engines that also run E5 (through HDBC, as the seed did).
hdbcEngines :: [String]
hdbcEngines = ["sqlite/hdbc", "postgresql/hdbc"]

benchmarks :: [String]
benchmarks = ["app.insert_user", "app.list_users", "app.insert_item", "app.query_user"]

driverVersion :: String -> String
driverVersion "acidstate/acid-state" = "acid-state " ++ VERSION_acid_state ++ ", ixset " ++ VERSION_ixset ++ ", safecopy "
                             ++ VERSION_safecopy
driverVersion _ = ""

-- | One store's four operations, plus what the checks read back (untimed).
data Store = Store
  { stInsertUser :: String -> String -> IO Integer
  , stListUsers :: IO Listed
  , stInsertItem :: String -> Item -> IO ()
  , stGetUser :: Integer -> IO (Maybe Account)
  , stItemCount :: String -> IO Integer
  , stFieldsPerRow :: Maybe Int64
  , stClose :: IO ()
  }

-- | A listing: the ids (for the check) and the number of rows; forced to normal form in the timed region.
data Listed = Listed [Integer] !Int deriving (Generic)

instance NFData Listed

-- | Set the benchmark up (corpus built untimed); Left: not applicable, with the reason.
setUp :: String -> String -> Spec -> IO (Either String (AppBench, IO ()))
setUp engine bench spec = case lookup corpus corpora of
  Nothing -> ioError (userError ("corpus " ++ show corpus ++ ": one of " ++ intercalate ", " (map fst corpora)))
  Just (n, target)
    | bench `notElem` benchmarks -> return (Left ("no Haskell implementation of " ++ bench ++ " on " ++ engine))
    | hash `notElem` ["off", "on"] -> ioError (userError ("hash " ++ show hash ++ ": on or off"))
    | otherwise -> do
        store <- openStore engine (specWorkdir spec) (configString "dsn" (specConfig spec)) n target
        b <- makeBench store n target `onException` stClose store
        return (Right (b, stClose store))
  where
    corpus = maybe "SM" id (paramString "corpus" spec)
    hash = maybe "off" id (paramString "hash" spec)
    makeBench store n target = do
      let ids = corpusIds n target
          targetName = let (_, nm, _) = userRow target in nm
          noCounts _ = return (Nothing, Nothing)
      k <- newIORef (0 :: Integer)
      case bench of
        "app.insert_user" -> do
          lastRef <- newIORef (maximum ids)
          let op = do
                modifyIORef' k (+ 1)
                i <- readIORef k
                let m = firstNewUser + i
                    name = "user" ++ show m
                    pw = "pass" ++ show m
                stored <- if hash == "on" then scryptHash pw else return pw
                uid <- stInsertUser store name stored
                return (uid, name, pw)
          return (AppBench op (checkNewUser store lastRef) noCounts)
        "app.list_users" -> do
          let want = (fromIntegral (length ids), sum ids)
              check (Listed got rows) = return $
                let s = sum got in
                if (fromIntegral rows, s) == want then Nothing
                else Just ("listed " ++ show rows ++ " users with id sum " ++ show s ++ ", expected "
                           ++ show (fst want) ++ " and " ++ show (snd want))
              -- a SQL store: the query, then one crossing per row, its fields converted; acid-state
              -- hands over Haskell values in-process: nothing crosses, nothing is converted
              counts (Listed _ rows) = return $ case stFieldsPerRow store of
                Just f -> (Just (1 + fromIntegral rows), Just (f * fromIntegral rows))
                Nothing -> (Nothing, Nothing)
          return (AppBench (stListUsers store) check counts)
        "app.insert_item" -> do
          let op = do
                modifyIORef' k (+ 1)
                i <- readIORef k
                stInsertItem store targetName (itemRow (itemsPerTarget + i))
                return i
              check i = do
                got <- stItemCount store targetName
                let want = itemsPerTarget + i
                return (if got == want then Nothing
                        else Just ("target user has " ++ show got ++ " items after " ++ show i
                                   ++ " inserts, expected " ++ show want))
          return (AppBench op check noCounts)
        _ -> do  -- app.query_user
          let (_, nm, pw) = userRow target
              expected = Account target nm pw [itemRow j | j <- [1 .. itemsPerTarget]]
              check got = return $ case got of
                -- the seed's SELECT has no ORDER BY: the items' order is the engine's to choose
                Just a | a { accountItems = sort (accountItems a) } == expected -> Nothing
                _ -> Just ("user " ++ show target ++ " read as " ++ show got ++ ", expected " ++ show expected)
          return (AppBench (stGetUser store target) check noCounts)

-- | app.insert_user's check (untimed): the id is above every earlier one, and the user reads
-- back with its name, no items, and its password (or a scrypt hash of it).
checkNewUser :: Store -> IORef Integer -> (Integer, String, String) -> IO (Maybe String)
checkNewUser store lastRef (uid, name, pw) = do
  lst <- readIORef lastRef
  writeIORef lastRef (max lst uid)
  if uid <= lst
    then return (Just ("new user's id " ++ show uid ++ " is not above the previous largest id " ++ show lst))
    else do
      got <- stGetUser store uid
      case got of
        Just a | accountName a == name && null (accountItems a) ->
          if accountPassphrase a == pw || scryptVerify pw (accountPassphrase a) then return Nothing
          else return (Just ("user " ++ show uid ++ "'s stored passphrase " ++ show (accountPassphrase a)
                             ++ " is neither " ++ show pw ++ " nor a scrypt hash of it"))
        _ -> return (Just ("user " ++ show uid ++ " read back as " ++ show got ++ ", expected name "
                           ++ show name ++ " and no items"))

-- ---------------------------------------------------------------- scrypt (app.py's layout)

scryptParams :: Scrypt.Parameters
scryptParams = Scrypt.Parameters { Scrypt.n = 16384, Scrypt.r = 8, Scrypt.p = 1, Scrypt.outputLength = 64 }

scryptHash :: String -> IO String
scryptHash pw = do
  salt <- getRandomBytes 32 :: IO BS.ByteString
  let key = Scrypt.generate scryptParams (B8.pack pw) salt :: BS.ByteString
  return (intercalate "|" ["14", "8", "1", b64 salt, b64 key])
  where b64 = B8.unpack . BAE.convertToBase BAE.Base64

scryptVerify :: String -> String -> Bool
scryptVerify pw stored = case splitOn '|' stored of
  [logn, r, p, salt, key] -> case (unb64 salt, unb64 key) of
    (Right s, Right k) ->
      let params = Scrypt.Parameters { Scrypt.n = 2 ^ (read logn :: Int), Scrypt.r = read r, Scrypt.p = read p
                                     , Scrypt.outputLength = BS.length k }
      in (Scrypt.generate params (B8.pack pw) s :: BS.ByteString) == k
    _ -> False
  _ -> False
  where unb64 = BAE.convertFromBase BAE.Base64 . B8.pack :: String -> Either String BS.ByteString

splitOn :: Char -> String -> [String]
splitOn c s = case break (== c) s of
  (a, []) -> [a]
  (a, _ : rest) -> a : splitOn c rest

-- ---------------------------------------------------------------- the stores

openStore :: String -> FilePath -> Maybe String -> Integer -> Integer -> IO Store
openStore "acidstate/acid-state" workdir _ n target = do
  let ids = corpusIds n target
      acct i = let (_, nm, pw) = userRow i
               in Account i nm pw (if i == target then [itemRow j | j <- [1 .. itemsPerTarget]] else [])
      initial = GoGet (Ix.fromList (map acct ids)) (maximum ids)
  _ <- evaluate (Ix.size (accounts initial))
  acid <- openLocalStateFrom (workdir </> "acid-state") initial
  createCheckpoint acid  -- the corpus on disk, as the seed's was (untimed)
  return Store
    { stInsertUser = \name pw -> update acid (NewAccount name pw)
    , stListUsers = do
        as <- query acid GetAccounts
        return (Listed (map accountId as) (length as))
    , stInsertItem = \name item -> do
        ok <- update acid (AddItem name item)
        when (not ok) (ioError (userError ("no user named " ++ name)))
    , stGetUser = \uid -> query acid (AccountById uid)
    , stItemCount = \name -> do
        as <- query acid GetAccounts
        return (maybe (-1) (fromIntegral . length . accountItems) (lookupName name as))
    , stFieldsPerRow = Nothing
    , stClose = closeAcidState acid
    }
  where lookupName name = foldr (\a r -> if accountName a == name then Just a else r) Nothing
openStore engine workdir dsn n target = do
  mc <- openConn engine (workdir </> "bench.db") dsn
  case mc >>= connHdbc of
    Nothing -> ioError (userError ("no E5 implementation of " ++ engine))
    Just c -> (hdbcStore engine c n target `onException` H.disconnect c)

-- | The seed's HDBC back-end: accounts and items tables, items tied to a user by name.
hdbcStore :: String -> H.ConnWrapper -> Integer -> Integer -> IO Store
hdbcStore engine c n target = do
  let postgres = takeWhile (/= '/') engine == "postgresql"
      ids = corpusIds n target
      start = maximum ids + 1
      idCol = if postgres then "id INTEGER GENERATED BY DEFAULT AS IDENTITY (START WITH " ++ show start ++ ") PRIMARY KEY"
              else "id INTEGER PRIMARY KEY"
      lit s = "'" ++ concatMap (\ch -> if ch == '\'' then "''" else [ch]) s ++ "'"
      chunks [] = []
      chunks xs = let (a, b) = splitAt (fromIntegral batch) xs in a : chunks b
      (_, targetName, _) = userRow target
  H.withTransaction c $ \t -> do
    void (H.run t "DROP TABLE IF EXISTS items" [])
    void (H.run t "DROP TABLE IF EXISTS accounts" [])
    void (H.run t ("CREATE TABLE accounts (" ++ idCol ++ ", name VARCHAR(120), passphrase VARCHAR(250))") [])
    void (H.run t "CREATE TABLE items (\"user\" VARCHAR(120), name VARCHAR(120), comment VARCHAR(120), status VARCHAR(4), count INTEGER)" [])
    forM_ (chunks ids) $ \chunk ->
      void (H.run t ("INSERT INTO accounts (id, name, passphrase) VALUES "
                     ++ intercalate "," [ "(" ++ show i ++ "," ++ lit nm ++ "," ++ lit pw ++ ")"
                                        | i <- chunk, let (_, nm, pw) = userRow i ]) [])
    void (H.run t ("INSERT INTO items (\"user\", name, comment, status, count) VALUES "
                   ++ intercalate "," [ "(" ++ lit targetName ++ "," ++ lit nm ++ "," ++ lit cm ++ "," ++ lit st
                                        ++ "," ++ show cnt ++ ")"
                                      | j <- [1 .. itemsPerTarget], let Item nm cm st cnt = itemRow j ]) [])
  let getUser uid = H.withTransaction c $ \t -> do
        rows <- H.quickQuery' t "SELECT * FROM accounts WHERE id = ?" [H.toSql uid]
        case rows of
          [[i, nm, pw]] -> do
            let name = H.fromSql nm
            items <- H.quickQuery' t "SELECT name, comment, status, count FROM items WHERE \"user\" = ?" [H.toSql (name :: String)]
            return (Just (Account (H.fromSql i) name (H.fromSql pw)
                            [Item (H.fromSql a) (H.fromSql b) (H.fromSql s) (H.fromSql k) | [a, b, s, k] <- items]))
          _ -> return Nothing
  return Store
    { stInsertUser = \name pw -> H.withTransaction c $ \t -> do
        rows <- H.quickQuery' t "INSERT INTO accounts (name, passphrase) VALUES (?, ?) RETURNING id"
                  [H.toSql name, H.toSql pw]
        case rows of
          [[i]] -> return (H.fromSql i)
          _ -> ioError (userError "INSERT ... RETURNING id returned no id")
    , stListUsers = H.withTransaction c $ \t -> do
        rows <- H.quickQuery' t "SELECT * FROM accounts" []
        -- the seed returned the rows as HDBC gave them; the ids are read for the check
        _ <- evaluate (forceRows rows)
        return (Listed (map (\r -> case r of
                                     (i : _) -> H.fromSql i
                                     [] -> 0) rows) (length rows))
    , stInsertItem = \name (Item nm cm st cnt) -> H.withTransaction c $ \t ->
        void (H.run t "INSERT INTO items (\"user\", name, comment, status, count) VALUES (?, ?, ?, ?, ?)"
                [H.toSql name, H.toSql nm, H.toSql cm, H.toSql st, H.toSql cnt])
    , stGetUser = getUser
    , stItemCount = \name -> H.withTransaction c $ \t -> do
        rows <- H.quickQuery' t "SELECT COUNT(*) FROM items WHERE \"user\" = ?" [H.toSql name]
        return (case rows of
                  [[v]] -> H.fromSql v
                  _ -> -1)
    , stFieldsPerRow = Just 3
    , stClose = H.disconnect c
    }

-- | Every value of every row to weak head normal form (SqlValue has no NFData instance).
forceRows :: [[H.SqlValue]] -> ()
forceRows = foldr (\r acc -> foldr seq () r `seq` acc) ()
